import { describe, expect, it } from 'vitest';
import { HttpError, ParseError, fullJitter } from '../../src/index.js';
import { retry, retryDelay, retryPolicy } from '../../src/tanstack/index.js';
import { thrown } from '../server/thrown.js';

const httpError = (status: number, headers: Record<string, string> = {}): HttpError =>
  new HttpError(new Response(null, { status, headers }), 'http://api.test/jobs/1');

describe('retryPolicy (pure, through retryDecision)', () => {
  it('waits Retry-After plus the injected spread, in seconds and HTTP-date forms', () => {
    const now = Date.UTC(2030, 0, 1);
    const policy = retryPolicy({ random: () => 0.5, now: () => now });
    expect(policy.retryDelay(0, httpError(503, { 'retry-after': '2' }))).toBe(2200);
    expect(policy.retryDelay(0, httpError(429, { 'retry-after': new Date(now + 10_000).toUTCString() }))).toBe(11_000);
    expect(policy.retry(0, httpError(503, { 'retry-after': '2' }))).toBe(true);
  });

  it('holds a huge Retry-After under maxRetryAfter, a hard cap: spread below it, over [cap / 1.2, cap], in whole ms', () => {
    const policy = retryPolicy({ random: () => 0.99, maxRetryAfter: 5000 });
    // 5000 / 1.2 + (5000 - 5000 / 1.2) * 0.99 = 4991.67, rounded up.
    expect(policy.retryDelay(0, httpError(503, { 'retry-after': '3600' }))).toBe(4992);
    expect(retryPolicy({ random: () => 0, maxRetryAfter: 5000 }).retryDelay(0, httpError(503, { 'retry-after': '3600' }))).toBe(4167);
    // A Retry-After at or under the cap is never undercut: the 20 % spread shrinks to fit between it and the cap.
    expect(retryPolicy({ random: () => 0.99, maxRetryAfter: 5000 }).retryDelay(0, httpError(503, { 'retry-after': '5' }))).toBe(5000);
    expect(retryPolicy({ random: () => 0.5, maxRetryAfter: 4500 }).retryDelay(0, httpError(503, { 'retry-after': '4' }))).toBe(4250);
  });

  it('falls back to full jitter (base 1 s, cap 30 s) without a usable Retry-After', () => {
    const policy = retryPolicy({ random: () => 0.5, maxRetries: 10 });
    expect([0, 1, 2, 5, 9].map((n) => policy.retryDelay(n, httpError(500)))).toEqual([500, 1000, 2000, 15_000, 15_000]);
    expect(policy.retryDelay(0, httpError(503, { 'retry-after': 'soon' }))).toBe(500);
    expect(policy.retryDelay(1, new TypeError('fetch failed'))).toBe(1000);
    expect(policy.retryDelay(0, new DOMException('slow', 'TimeoutError'))).toBe(500);
  });

  it('uses a custom backoff and never calls it from retry()', () => {
    const calls: number[] = [];
    const policy = retryPolicy({ backoff: (n) => (calls.push(n), 42) });
    expect(policy.retry(0, httpError(500))).toBe(true);
    expect(calls).toEqual([]);
    expect(policy.retryDelay(0, httpError(500))).toBe(42);
    expect(calls).toEqual([1]);
  });

  it('retries only retryable errors', () => {
    for (const error of [httpError(408), httpError(429), httpError(500), httpError(503), new TypeError('fetch failed')]) {
      expect(retry(0, error)).toBe(true);
    }
    const never = [
      httpError(400),
      httpError(404),
      httpError(304),
      new ParseError(new Response('x'), 'http://api.test', new SyntaxError('bad')),
      new DOMException('stop', 'AbortError'),
      new TypeError('x is not a function'),
      'a string',
    ];
    for (const error of never) {
      expect(retry(0, error)).toBe(false);
      expect(retryDelay(0, error)).toBe(0);
    }
  });

  it('stops after maxRetries, Retry-After answers included (default 3, like TanStack)', () => {
    const paced = httpError(503, { 'retry-after': '1' });
    expect([0, 1, 2, 3].map((n) => retry(n, paced))).toEqual([true, true, true, false]);
    const custom = retryPolicy({ maxRetries: 1, shouldRetry: () => true });
    expect([0, 1].map((n) => custom.retry(n, new Error('anything')))).toEqual([true, false]);
    // A custom shouldRetry has the last word, statuses included.
    expect(custom.retry(0, httpError(409))).toBe(true);
    expect(retryPolicy({ maxRetries: 0 }).retry(0, paced)).toBe(false);
  });

  it('keeps a decorrelated or other stateful backoff in step: one call per retry', () => {
    const policy = retryPolicy({ backoff: fullJitter({ base: 100, cap: 1000, random: () => 1 }) });
    expect(policy.retryDelay(2, httpError(502))).toBe(400);
  });

  it.each([
    [{ maxRetries: -1 }, 'Expected `maxRetries` to be a non-negative integer'],
    [{ maxRetries: 1.5 }, 'Expected `maxRetries` to be a non-negative integer'],
    [{ backoff: 5 }, 'Expected `backoff` to be a function'],
    [{ maxRetryAfter: -5 }, 'Expected `maxRetryAfter` to be a finite number >= 0'],
    [{ random: 0.5 }, 'Expected `random` to be a function'],
    ['fast', 'Expected `options` to be an object'],
  ])('refuses %j with a TypeError naming the option', async (options, message) => {
    const error = await thrown(() => retryPolicy(options as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(message);
  });
});
