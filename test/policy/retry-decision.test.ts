import { describe, expect, it } from 'vitest';
import { constant, decorrelatedJitter } from '../../src/index.js';
import { isRetryableStatus } from '../../src/kit/index.js';
import { PACED_FROM, retryDecision, type Failure, type RetryDecision, type RetryPolicy } from '../../src/policy/retry-decision.js';

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
/** A status answer whose server wait the loop read already (`asked`, as `said`), over headers that say `retryAfter`. */
const read = (code: number, asked: number | null, retryAfter: string | null = null): Failure => ({ ...status(code, retryAfter), said: asked === null ? null : { ms: asked, source: 'retry-after' } });
const unreachable: Failure = { type: 'network', error: new TypeError('fetch failed'), unreachable: true };
/** A backoff that records its calls and returns `ms`. */
const recording = (ms = 100) => {
  const calls: Array<[number, number | undefined, number | undefined]> = [];
  const backoff = (attempt: number, previous?: number, interval?: number): number => {
    calls.push([attempt, previous, interval]);
    return ms;
  };
  return { calls, backoff };
};

describe('retryDecision', () => {
  it('stops at once on a status that is not retried', () => {
    for (const code of [400, 401, 403, 404, 409, 422, 301, 302]) {
      expect(retryDecision(status(code), 0, policy, 0, 0.5)).toEqual({ retry: false, failures: 0, reason: 'not-retryable', status: code });
    }
  });

  it('counts network errors, timeouts and retryable statuses, waiting interval + backoff(n)', () => {
    expect(retryDecision({ type: 'network', error: new TypeError('x') }, 0, policy, 0, 0.5)).toEqual({
      retry: true, delay: 1100, failures: 1, reason: 'network', retryAfter: null, paced: false, backoff: 100,
    });
    expect(retryDecision({ type: 'timeout', error: 1 }, 1, policy, 0, 0.5)).toMatchObject({ delay: 1200, failures: 2, reason: 'timeout', backoff: 200 });
    for (const code of [408, 429, 500, 502, 503, 504, 599]) {
      expect(retryDecision(status(code), 0, policy, 0, 0.5)).toMatchObject({ retry: true, failures: 1, status: code, delay: 1100, paced: false, backoff: 100 });
    }
  });

  it('gives up when failures exceed retries', () => {
    expect(retryDecision(status(500), 2, policy, 0, 0.5)).toEqual({ retry: false, failures: 3, reason: 'exhausted', status: 500 });
    expect(retryDecision({ type: 'network', error: 1 }, 2, policy, 0, 0.5)).toEqual({ retry: false, failures: 3, reason: 'exhausted' });
    expect(retryDecision(status(500), 1, policy, 0, 0.5)).toMatchObject({ retry: true, failures: 2 });
    expect(retryDecision(status(500), 0, { ...policy, retries: 0 }, 0, 0.5)).toEqual({ retry: false, failures: 1, reason: 'exhausted', status: 500 });
  });

  it('paces by Retry-After with a spread of up to 20% above, without counting it', () => {
    expect(retryDecision(status(503, '10'), 2, policy, 0, 0)).toEqual({
      retry: true, delay: 10_000, failures: 2, reason: 'status', status: 503, retryAfter: 10_000, source: 'retry-after', paced: true, backoff: 0,
    });
    expect(retryDecision(status(429, '10'), 0, policy, 0, 0.5)).toMatchObject({ delay: 11_000, failures: 0 });
    // The top of the spread: random just under 1 lands on 1.2 times the Retry-After, rounded up to whole ms.
    expect(delayOf(retryDecision(status(429, '10'), 0, policy, 0, 0.999_999))).toBe(12_000);
    expect(delayOf(retryDecision(status(429, '10'), 0, policy, 0, 0.999))).toBe(11_998);
  });

  it('counts paced answers when the policy says so', () => {
    const counting = { ...policy, countPaced: true, interval: 0 };
    expect(retryDecision(status(503, '1'), 0, counting, 0, 0)).toMatchObject({ retry: true, failures: 1, delay: 1000, paced: true, backoff: 0 });
    expect(retryDecision(status(503, '1'), 2, counting, 0, 0)).toMatchObject({ retry: false, reason: 'exhausted' });
  });

  it('never waits less than interval; a Retry-After is capped hard at maxRetryAfter, spread below the cap', () => {
    expect(delayOf(retryDecision(status(503, '1'), 0, policy, 0, 0))).toBe(1000);
    expect(delayOf(retryDecision(status(503, '10'), 0, { ...policy, interval: 15_000 }, 0, 0.5))).toBe(15_000);
    const capped = { ...policy, maxRetryAfter: 5000 };
    // A Retry-After equal to the cap: no room above it.
    expect(delayOf(retryDecision(status(503, '5'), 0, capped, 0, 0.99))).toBe(5000);
    // Above the cap: over [5000 / 1.2, 5000], rounded up.
    expect(delayOf(retryDecision(status(503, '3600'), 0, capped, 0, 0.5))).toBe(4584);
    expect(delayOf(retryDecision(status(503, '3600'), 0, capped, 0, 0))).toBe(4167);
    expect(delayOf(retryDecision(status(503, '3600'), 0, capped, 0, 0.999_999))).toBe(5000);
    // Between the Retry-After and the cap the spread shrinks to fit: [4500, 5000].
    expect(delayOf(retryDecision(read(503, 4500), 0, capped, 0, 0.5))).toBe(4750);
    expect(delayOf(retryDecision(read(503, 4500), 0, capped, 0, 0.999))).toBe(5000);
    // An interval above the cap still wins: the cap bounds the server's wait, not the poll's own.
    expect(delayOf(retryDecision(status(503, '3600'), 0, { ...capped, interval: 20_000 }, 0, 0.5))).toBe(20_000);
  });

  it('a Retry-After under a second (0, a date just past) is a counted failure waiting at least a second plus the spread: no hot loop', () => {
    const eager = { ...policy, interval: 0, backoff: () => 0 };
    expect(retryDecision(status(503, '0'), 0, eager, 0, 0.5)).toEqual({
      retry: true, delay: 1100, failures: 1, reason: 'status', status: 503, retryAfter: null, paced: false, backoff: 0,
    });
    expect(retryDecision(status(429, 'Wed, 21 Oct 2015 07:27:00 GMT'), 1, eager, Date.UTC(2015, 9, 21, 7, 27, 0, 400), 0)).toMatchObject({ delay: 1000, failures: 2 });
    expect(retryDecision(status(503, '0'), 2, eager, 0, 0)).toEqual({ retry: false, failures: 3, reason: 'exhausted', status: 503 });
    // The backoff still wins when it is longer.
    expect(retryDecision(status(503, '0'), 0, policy, 0, 0.5)).toMatchObject({ delay: 1100, failures: 1, backoff: 100 });
    expect(retryDecision(status(503, '0'), 1, policy, 0, 0)).toMatchObject({ delay: 1200, failures: 2 });
    // The second plus its spread in whole ms, rounded up: 1000 + 0.0001 * 200 = 1000.02.
    expect(delayOf(retryDecision(status(503, '0'), 0, eager, 0, 0.0001))).toBe(1001);
  });

  it('the server\'s own figure decides pacing, the cap only the wait: a 10 s Retry-After capped at 0.5 s is still paced, spread below the cap', () => {
    expect(retryDecision(status(503, '10'), 0, { ...policy, interval: 0, maxRetryAfter: 500 }, 0, 0)).toMatchObject({
      retry: true, delay: 417, failures: 0, retryAfter: 500, paced: true, backoff: 0,
    });
  });

  it('paces from exactly a second: PACED_FROM is inclusive', () => {
    expect(PACED_FROM).toBe(1000);
    expect(retryDecision(read(503, 1000), 0, policy, 0, 0.9)).toEqual({
      retry: true, delay: 1180, failures: 0, reason: 'status', status: 503, retryAfter: 1000, source: 'retry-after', paced: true, backoff: 0,
    });
    expect(retryDecision(read(503, 999), 0, policy, 0, 0.9)).toEqual({
      retry: true, delay: 1180, failures: 1, reason: 'status', status: 503, retryAfter: null, paced: false, backoff: 100,
    });
  });

  it('takes the server\'s wait the loop read already (`asked`) over the headers; null means the server said nothing', () => {
    expect(retryDecision(read(503, 2000, '10'), 0, policy, 0, 0)).toMatchObject({ delay: 2000, retryAfter: 2000, paced: true, failures: 0 });
    expect(retryDecision(read(503, null, '10'), 0, policy, 0, 0)).toMatchObject({ delay: 1100, retryAfter: null, paced: false, failures: 1, backoff: 100 });
    expect(retryDecision(read(503, 0, '10'), 0, { ...policy, interval: 0 }, 0, 0.5)).toMatchObject({ delay: 1100, retryAfter: null, paced: false, failures: 1 });
    // Absent: read from the headers.
    expect(retryDecision(status(503, '10'), 0, policy, 0, 0)).toMatchObject({ delay: 10_000, paced: true });
  });

  it('a rate-limit reset paces as a Retry-After does', () => {
    const reset = (code: number, fields: Record<string, string>): Failure => ({ type: 'status', status: code, headers: new Headers(fields) });
    expect(retryDecision(reset(429, { 'ratelimit-reset': '2' }), 0, policy, 0, 0)).toMatchObject({ delay: 2000, retryAfter: 2000, paced: true, failures: 0 });
    expect(retryDecision(reset(503, { 'ratelimit-remaining': '0', 'ratelimit-reset': '2' }), 0, policy, 0, 0.5)).toMatchObject({ delay: 2200, paced: true });
    // A 503 with requests left in the window: the reset says nothing of this answer.
    expect(retryDecision(reset(503, { 'ratelimit-reset': '2' }), 0, policy, 0, 0)).toMatchObject({ delay: 1100, paced: false, failures: 1 });
  });

  it('reads Retry-After dates against now', () => {
    const now = Date.UTC(2015, 9, 21, 7, 27, 0);
    expect(delayOf(retryDecision(status(503, 'Wed, 21 Oct 2015 07:27:30 GMT'), 0, policy, now, 0))).toBe(30_000);
  });

  it('falls back to backoff on a malformed Retry-After, and counts it', () => {
    expect(retryDecision(status(503, 'later'), 0, policy, 0, 0.5)).toMatchObject({ delay: 1100, failures: 1, retryAfter: null, paced: false });
  });

  it('calls the backoff with (failures, previous, interval), previous 0 by default; never for a paced wait', () => {
    const { calls, backoff } = recording();
    const spied = { ...policy, backoff };
    retryDecision(status(500), 0, spied, 0, 0.5);
    retryDecision({ type: 'timeout', error: 1 }, 1, spied, 0, 0.5, undefined, 350);
    retryDecision(status(503, '10'), 1, spied, 0, 0.5, undefined, 350);
    retryDecision(status(503, '0'), 0, { ...spied, interval: 0 }, 0, 0.5, undefined, 7);
    retryDecision(status(404), 0, spied, 0, 0.5, undefined, 350);
    retryDecision(status(500), 2, spied, 0, 0.5, undefined, 350);
    expect(calls).toEqual([[1, 0, 1000], [2, 350, 1000], [1, 7, 0]]);
  });

  it('hands back the backoff it drew, unrounded, so the loop can pass it as `previous`', () => {
    const jitter = decorrelatedJitter({ base: 100, cap: 1000, random: () => 0.5 });
    const first = retryDecision(status(500), 0, { ...policy, retries: 5, backoff: jitter }, 0, 0);
    expect(first).toMatchObject({ delay: 1200, backoff: 200 });
    const second = retryDecision(status(500), 1, { ...policy, retries: 5, backoff: jitter }, 0, 0, undefined, (first as { backoff: number }).backoff);
    expect(second).toMatchObject({ delay: 1350, backoff: 350 });
    const third = retryDecision(status(500), 2, { ...policy, retries: 5, backoff: jitter }, 0, 0, undefined, 350);
    expect(third).toMatchObject({ delay: 1575, backoff: 575 });
    expect(retryDecision(status(500), 0, { ...policy, backoff: () => 100.2 }, 0, 0)).toMatchObject({ delay: 1101, backoff: 100.2 });
  });

  it('rounds every backoff wait up to whole ms: ceil, not round or floor', () => {
    expect(retryDecision(status(500), 0, { ...policy, backoff: () => 100.2 }, 0, 0)).toMatchObject({ delay: 1101 });
    expect(delayOf(retryDecision(status(500), 0, { ...policy, interval: 0, backoff: () => 0.0001 }, 0, 0))).toBe(1);
    expect(delayOf(retryDecision(status(500), 0, { ...policy, interval: 0, backoff: () => 99.5 }, 0, 0))).toBe(100);
    expect(delayOf(retryDecision(status(500), 0, { ...policy, interval: 0.4, backoff: () => 0.4 }, 0, 0))).toBe(1);
    // A server's wait with a fraction of a ms (a rate-limit reset in decimals) is rounded up too.
    expect(delayOf(retryDecision(read(503, 2000.2), 0, policy, 0, 0))).toBe(2001);
  });

  it('a request that never reached a server waits exactly the interval, counted, with no backoff', () => {
    const { calls, backoff } = recording();
    const spied = { ...policy, backoff };
    expect(retryDecision(unreachable, 0, spied, 0, 0.5, undefined, 350)).toStrictEqual({
      retry: true, delay: 1000, failures: 1, reason: 'network', retryAfter: null, paced: false, backoff: 0,
    });
    expect(retryDecision(unreachable, 1, spied, 0, 0.999)).toMatchObject({ delay: 1000, failures: 2 });
    expect(retryDecision(unreachable, 2, spied, 0, 0.5)).toStrictEqual({ retry: false, failures: 3, reason: 'exhausted' });
    expect(calls).toEqual([]);
  });

  it('without an interval (retry, fetchWithRetry) an unreachable request backs off as usual; `unreachable: false` too', () => {
    const { calls, backoff } = recording(250);
    expect(retryDecision(unreachable, 0, { ...policy, interval: 0, backoff }, 0, 0.5, undefined, 90)).toStrictEqual({
      retry: true, delay: 250, failures: 1, reason: 'network', retryAfter: null, paced: false, backoff: 250,
    });
    expect(retryDecision({ type: 'network', error: 1, unreachable: false }, 0, { ...policy, backoff }, 0, 0.5)).toMatchObject({ delay: 1250, backoff: 250 });
    expect(calls).toEqual([[1, 90, 0], [1, 0, 1000]]);
    // A backoff of 0 with no interval: a retry at once, not one ms later.
    expect(delayOf(retryDecision(unreachable, 0, { ...policy, interval: 0, backoff: () => 0 }, 0, 0.5))).toBe(0);
  });

  it('prices a retry: timeoutCost after a timeout, retryCost otherwise; no cost without prices or when it stops', () => {
    const prices = { retryCost: 1, timeoutCost: 5 };
    expect(retryDecision({ type: 'timeout', error: 1 }, 0, policy, 0, 0.5, prices)).toMatchObject({ retry: true, cost: 5 });
    expect(retryDecision({ type: 'network', error: 1 }, 0, policy, 0, 0.5, prices)).toMatchObject({ retry: true, cost: 1 });
    expect(retryDecision(unreachable, 0, policy, 0, 0.5, prices)).toMatchObject({ retry: true, cost: 1 });
    expect(retryDecision(status(503, '10'), 0, policy, 0, 0.5, prices)).toMatchObject({ retry: true, paced: true, cost: 1 });
    expect(retryDecision(status(500), 0, policy, 0, 0.5, { retryCost: 0, timeoutCost: 0 })).toMatchObject({ cost: 0 });
    expect(retryDecision(status(404), 0, policy, 0, 0.5, prices)).toStrictEqual({ retry: false, failures: 0, reason: 'not-retryable', status: 404 });
    expect(retryDecision(status(500), 2, policy, 0, 0.5, prices)).toStrictEqual({ retry: false, failures: 3, reason: 'exhausted', status: 500 });
    expect(retryDecision(status(500), 0, policy, 0, 0.5)).not.toHaveProperty('cost');
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
    expect(retryDecision({ type: 'timeout', error: 1 }, 0, policy, 0, 0.5)).toStrictEqual({
      retry: true, delay: 1100, failures: 1, reason: 'timeout', retryAfter: null, paced: false, backoff: 100,
    });
    expect(retryDecision(unreachable, 0, policy, 0, 0.5)).not.toHaveProperty('status');
  });

  // The paced and unreachable paths round up too: a throttled poll hands a
  // fractional interval (its slowdown), and a user may set one.
  it('every wait is whole ms, with a fractional interval too (a throttled slowdown)', () => {
    const throttled = { ...policy, interval: 2462.5 };
    expect(delayOf(retryDecision(status(429, '1'), 0, throttled, 0, 0))).toBe(2463);
    expect(delayOf(retryDecision(unreachable, 0, { ...policy, interval: 1000.5 }, 0, 0))).toBe(1001);
    expect(delayOf(retryDecision(status(500), 0, throttled, 0, 0))).toBe(2563);
  });
});
