import { afterEach, describe, expect, it } from 'vitest';
import { poll, type PollEvent } from '../../src/index.js';
import { parseRetryAfter } from '../../src/kit/index.js';
import { jsonWithETag, retryLater } from '../../src/server/index.js';
import { recordingEnv } from '../helpers/env.js';
import { serveWeb } from './serve.js';
import { thrown } from './thrown.js';

describe('retryLater', () => {
  it('sends whole delay-seconds, rounded up', () => {
    expect(retryLater(503, 30).headers.get('retry-after')).toBe('30');
    expect(retryLater(429, 1.2).headers.get('retry-after')).toBe('2');
    expect(retryLater(429, 0).headers.get('retry-after')).toBe('0');
    expect(retryLater(503, 0.001).headers.get('retry-after')).toBe('1');
  });

  it('sends a Date as an IMF-fixdate, rounded up to the next second', () => {
    const response = retryLater(503, new Date(Date.UTC(2030, 0, 2, 3, 4, 5, 1)));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('Wed, 02 Jan 2030 03:04:06 GMT');
    expect(retryLater(429, new Date(Date.UTC(2030, 0, 2, 3, 4, 5))).headers.get('retry-after')).toBe(
      'Wed, 02 Jan 2030 03:04:05 GMT',
    );
  });

  it('is read back by pollite as the wait it announces', () => {
    const now = Date.UTC(2030, 0, 1);
    expect(parseRetryAfter(retryLater(429, 7).headers.get('retry-after'), { now })).toBe(7000);
    expect(parseRetryAfter(retryLater(503, new Date(now + 90_000)).headers.get('retry-after'), { now })).toBe(90_000);
  });

  it('keeps init headers and body, and never lets init change the status', async () => {
    const response = retryLater(429, 5, {
      headers: { 'content-type': 'application/json', 'retry-after': '1' },
      body: JSON.stringify({ error: 'slow down' }),
      status: 200,
    } as never);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ error: 'slow down' });
    expect(retryLater(503, 1).body).toBeNull();
  });

  it.each([
    [500, 1, 'Expected `status` to be 429 or 503, got 500'],
    ['503', 1, 'Expected `status` to be 429 or 503, got 503'],
    [503, -1, 'Expected `after` to be a finite number of seconds >= 0 or a Date, got -1'],
    [503, Number.NaN, 'Expected `after` to be a finite number of seconds >= 0 or a Date, got NaN'],
    [503, Infinity, 'Expected `after` to be a finite number of seconds >= 0 or a Date, got Infinity'],
    [503, 1e21, 'Expected `after` to be at most 2^53 - 1 seconds, got 1e+21'],
    [503, '5', 'Expected `after` to be a finite number of seconds >= 0 or a Date, got string'],
    [503, new Date('nope'), 'Expected `after` to be a valid Date between 1970 and 9999'],
    [503, new Date(Date.UTC(10_000, 0, 1)), 'Expected `after` to be a valid Date between 1970 and 9999'],
  ])('refuses status %j / after %j with a TypeError', async (status, after, message) => {
    const error = await thrown(() => retryLater(status as 503, after as number));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(message);
  });
});

describe('retryLater over real HTTP, read by pollite', () => {
  let server: Awaited<ReturnType<typeof serveWeb>> | undefined;
  afterEach(() => server?.close());

  it("paces poll's retries in both forms: 3 s, then an HTTP-date 5 s ahead", async () => {
    const now = Date.UTC(2030, 0, 1);
    let calls = 0;
    server = await serveWeb((request) => {
      calls += 1;
      if (calls === 1) return retryLater(503, 3);
      if (calls === 2) return retryLater(429, new Date(now + 5000));
      return jsonWithETag(request, { status: 'done' });
    });
    const { env, delays } = recordingEnv({ random: 0 });
    const retries: PollEvent[] = [];
    const job = await poll<{ status: string }>(`${server.url}/jobs/1`, {
      isDone: (j) => j.status === 'done',
      env: { ...env, now: () => now },
      onEvent: (event) => event.type === 'retry' && retries.push(event),
    });
    expect(job).toEqual({ status: 'done' });
    // The 503's Retry-After is waited as it is, and does not slow the pace; the 429 slows it (the
    // interval, 2 s, times 2: 4 s), which is shorter than its Retry-After.
    expect(retries).toMatchObject([
      { status: 503, retryAfter: 3000, delay: 3000 },
      { status: 429, retryAfter: 5000, delay: 5000 },
    ]);
    expect(delays).toEqual([3000, 5000]);
    expect(server.exchanges.map((e) => e.status)).toEqual([503, 429, 200]);
  });
});
