import { describe, expect, it } from 'vitest';
import { constant, isRetryableStatus } from '../../src/index.js';
import { retryDecision, type RetryDecision, type RetryPolicy } from '../../src/policy/retry-decision.js';

const delayOf = (decision: RetryDecision): number => {
  if (!decision.retry) throw new Error('expected a retry');
  return decision.delay;
};

const policy: RetryPolicy = {
  retries: 2,
  backoff: (n) => n * 100,
  maxRetryAfter: 300_000,
  interval: 1000,
  countPaced: false,
  isRetryableStatus,
};
const status = (code: number, retryAfter: string | null = null) => ({
  type: 'status' as const,
  status: code,
  headers: new Headers(retryAfter === null ? {} : { 'retry-after': retryAfter }),
});

describe('retryDecision', () => {
  it('stops at once on a status that is not retried', () => {
    for (const code of [400, 401, 403, 404, 409, 422, 301, 302]) {
      expect(retryDecision(status(code), 0, policy, 0, 0.5)).toEqual({ retry: false, failures: 0, reason: 'not-retryable', status: code });
    }
  });

  it('counts network errors, timeouts and retryable statuses, waiting interval + backoff(n)', () => {
    expect(retryDecision({ type: 'network', error: new TypeError('x') }, 0, policy, 0, 0.5)).toEqual({
      retry: true, delay: 1100, failures: 1, reason: 'network', retryAfter: null,
    });
    expect(retryDecision({ type: 'timeout', error: 1 }, 1, policy, 0, 0.5)).toMatchObject({ delay: 1200, failures: 2, reason: 'timeout' });
    for (const code of [408, 429, 500, 502, 503, 504, 599]) {
      expect(retryDecision(status(code), 0, policy, 0, 0.5)).toMatchObject({ retry: true, failures: 1, status: code, delay: 1100 });
    }
  });

  it('gives up when failures exceed retries', () => {
    expect(retryDecision(status(500), 2, policy, 0, 0.5)).toEqual({ retry: false, failures: 3, reason: 'exhausted', status: 500 });
    expect(retryDecision({ type: 'network', error: 1 }, 2, policy, 0, 0.5)).toEqual({ retry: false, failures: 3, reason: 'exhausted' });
  });

  it('paces by Retry-After with a spread of up to 20% above, without counting it', () => {
    expect(retryDecision(status(503, '10'), 2, policy, 0, 0)).toEqual({
      retry: true, delay: 10_000, failures: 2, reason: 'status', status: 503, retryAfter: 10_000,
    });
    expect(retryDecision(status(429, '10'), 0, policy, 0, 0.5)).toMatchObject({ delay: 11_000, failures: 0 });
    // The top of the spread: random just under 1 lands just under 1.2 times the Retry-After.
    expect(delayOf(retryDecision(status(429, '10'), 0, policy, 0, 0.999_999))).toBeCloseTo(11_999.998, 6);
  });

  it('counts paced answers when the policy says so', () => {
    const counting = { ...policy, countPaced: true, interval: 0 };
    expect(retryDecision(status(503, '1'), 0, counting, 0, 0)).toMatchObject({ retry: true, failures: 1, delay: 1000 });
    expect(retryDecision(status(503, '1'), 2, counting, 0, 0)).toMatchObject({ retry: false, reason: 'exhausted' });
  });

  it('never waits less than interval; a Retry-After is capped at maxRetryAfter, with the spread above the cap', () => {
    expect(delayOf(retryDecision(status(503, '1'), 0, policy, 0, 0))).toBe(1000);
    const capped = { ...policy, maxRetryAfter: 5000 };
    expect(delayOf(retryDecision(status(503, '5'), 0, capped, 0, 0.99))).toBe(5000 + 5000 * 0.2 * 0.99);
    expect(delayOf(retryDecision(status(503, '3600'), 0, capped, 0, 0.5))).toBe(5500);
    expect(delayOf(retryDecision(status(503, '3600'), 0, capped, 0, 0))).toBe(5000);
  });

  it('stops with reason deadline when the wait would end after it, naming the wait', () => {
    const bounded = { ...policy, deadline: 10_000 };
    expect(retryDecision(status(503, '10'), 0, bounded, 1, 0)).toEqual({ retry: false, failures: 0, reason: 'deadline', status: 503, delay: 10_000 });
    expect(retryDecision(status(503, '10'), 0, bounded, 0, 0)).toMatchObject({ retry: true, delay: 10_000 });
  });

  it('a Retry-After under a second (0, a date just past) is a counted failure waiting at least a second plus the spread: no hot loop', () => {
    const eager = { ...policy, interval: 0, backoff: () => 0 };
    expect(retryDecision(status(503, '0'), 0, eager, 0, 0.5)).toEqual({ retry: true, delay: 1100, failures: 1, reason: 'status', status: 503, retryAfter: null });
    expect(retryDecision(status(429, 'Wed, 21 Oct 2015 07:27:00 GMT'), 1, eager, Date.UTC(2015, 9, 21, 7, 27, 0, 400), 0)).toMatchObject({ delay: 1000, failures: 2 });
    expect(retryDecision(status(503, '0'), 2, eager, 0, 0)).toEqual({ retry: false, failures: 3, reason: 'exhausted', status: 503 });
    // The backoff still wins when it is longer.
    expect(retryDecision(status(503, '0'), 0, policy, 0, 0.5)).toMatchObject({ delay: 1100, failures: 1 });
    expect(retryDecision(status(503, '0'), 1, policy, 0, 0)).toMatchObject({ delay: 1200, failures: 2 });
  });

  it('the server\'s own figure decides pacing, the cap only the wait: a 10 s Retry-After capped at 0.5 s is still paced', () => {
    expect(retryDecision(status(503, '10'), 0, { ...policy, interval: 0, maxRetryAfter: 500 }, 0, 0)).toMatchObject({ retry: true, delay: 500, failures: 0, retryAfter: 500 });
  });

  it('reads Retry-After dates against now', () => {
    const now = Date.UTC(2015, 9, 21, 7, 27, 0);
    expect(delayOf(retryDecision(status(503, 'Wed, 21 Oct 2015 07:27:30 GMT'), 0, policy, now, 0))).toBe(30_000);
  });

  it('falls back to backoff on a malformed Retry-After, and counts it', () => {
    expect(retryDecision(status(503, 'later'), 0, policy, 0, 0.5)).toMatchObject({ delay: 1100, failures: 1, retryAfter: null });
  });

  it('refuses a backoff that returns nonsense, naming it and the value', () => {
    for (const [returned, shown] of [[Number.NaN, 'NaN'], [-1, '-1'], [Infinity, 'Infinity'], ['5', '5']] as const) {
      expect(() => retryDecision(status(500), 0, { ...policy, backoff: () => returned as number }, 0, 0)).toThrow(
        new TypeError(`Expected \`backoff\` to return a finite number >= 0, got ${shown}`),
      );
    }
    expect(retryDecision(status(500), 0, { ...policy, backoff: () => 0 }, 0, 0)).toMatchObject({ retry: true, delay: 1000 });
    expect(() => retryDecision(status(500), 0, { ...policy, backoff: constant(5) }, 0, 0)).not.toThrow();
  });

  it('names a status only when there was an answer: no `status` key after a network failure or a timeout', () => {
    expect(retryDecision({ type: 'network', error: 1 }, 2, policy, 0, 0.5)).toStrictEqual({ retry: false, failures: 3, reason: 'exhausted' });
    expect(retryDecision({ type: 'timeout', error: 1 }, 0, policy, 0, 0.5)).toStrictEqual({ retry: true, delay: 1100, failures: 1, reason: 'timeout', retryAfter: null });
    expect(retryDecision({ type: 'network', error: 1 }, 0, { ...policy, deadline: 500 }, 0, 0.5)).toStrictEqual({ retry: false, failures: 1, reason: 'deadline', delay: 1100 });
  });
});
