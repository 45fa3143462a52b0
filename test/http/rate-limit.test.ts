import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRateLimit, retryDecision, serverWait, type RetryPolicy } from '../../src/kit/index.js';
import { FC_RUNS } from '../property/runs.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const h = (fields: Record<string, string>): Headers => new Headers(fields);

describe('parseRateLimit: every dialect the limiters speak', () => {
  it.each([
    ['IETF draft-6', { 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': '5' }, { remaining: 0, reset: 5000 }],
    ['IETF draft-7', { ratelimit: 'limit=10, remaining=0, reset=5' }, { remaining: 0, reset: 5000 }],
    ['IETF draft-8', { ratelimit: '"10-in-5sec"; r=0; t=5', 'ratelimit-policy': '"10-in-5sec"; q=10; w=5' }, { remaining: 0, reset: 5000 }],
    ['draft-8 with remaining', { ratelimit: 'default;r=7;t=30' }, { remaining: 7, reset: 30_000 }],
    ['X-RateLimit-Reset as epoch seconds (GitHub, express-rate-limit legacy)', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 42) }, { remaining: 0, reset: 42_000 }],
    ['X-RateLimit-Reset as seconds to go (@fastify/rate-limit)', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '7' }, { remaining: 0, reset: 7000 }],
    ['X-RateLimit-Reset as fractional epoch seconds (koa-ratelimit)', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String((NOW + 350) / 1000) }, { remaining: 0, reset: 350 }],
    ['a reset in the past', { 'x-ratelimit-reset': String(NOW / 1000 - 10) }, { remaining: null, reset: 0 }],
    ['no headers', {}, { remaining: null, reset: null }],
    ['the standard header wins over the X- one', { 'ratelimit-reset': '3', 'x-ratelimit-reset': '9' }, { remaining: null, reset: 3000 }],
  ])('%s', (_label, fields, expected) => {
    expect(parseRateLimit(h(fields), NOW)).toEqual(expected);
  });

  it('ignores malformed values and caps the reset', () => {
    for (const bad of ['-1', '1e3', '0x10', 'soon', '', ' ', 'Infinity', 'NaN', '5s', '+5']) {
      expect(parseRateLimit(h({ 'ratelimit-reset': bad, 'ratelimit-remaining': bad }), NOW), bad).toEqual({ remaining: null, reset: null });
    }
    expect(parseRateLimit(h({ 'ratelimit-reset': '99999999' }), NOW).reset).toBe(300_000);
    expect(parseRateLimit(h({ 'ratelimit-reset': '99999999' }), NOW, 1000).reset).toBe(1000);
  });

  it('reads values through any HeaderReader, trimmed, counts of several digits included', () => {
    const fields: Record<string, string> = { 'ratelimit-remaining': ' 12 ', 'ratelimit-reset': ' 2.5 ' };
    const reader = { get: (name: string): string | null => fields[name] ?? null };
    expect(parseRateLimit(reader, NOW)).toEqual({ remaining: 12, reset: 2500 });
    expect(parseRateLimit(h({ ratelimit: 'limit=100, remaining=42, reset=10' }), NOW)).toEqual({ remaining: 42, reset: 10_000 });
  });

  it('reads an X-RateLimit-Reset of exactly 10^9 as seconds to go, one more as epoch seconds', () => {
    expect(parseRateLimit(h({ 'x-ratelimit-reset': '1000000000' }), NOW)).toEqual({ remaining: null, reset: 300_000 });
    expect(parseRateLimit(h({ 'x-ratelimit-reset': '1000000001' }), NOW)).toEqual({ remaining: null, reset: 0 });
  });

  it('never throws and returns finite values in range for any header text (fuzzed, 1 MB included)', () => {
    const text = fc.oneof(fc.string({ maxLength: 200 }), fc.stringMatching(/^[0-9.;,=rtlimaesingx "-]{0,80}$/));
    fc.assert(
      fc.property(text, text, text, (ratelimit, reset, remaining) => {
        const parsed = parseRateLimit(h({ ratelimit: ratelimit.replace(/[\r\n\0]/g, ''), 'x-ratelimit-reset': reset.replace(/[\r\n\0]/g, ''), 'ratelimit-remaining': remaining.replace(/[\r\n\0]/g, '') }), NOW);
        expect(parsed.reset === null || (Number.isFinite(parsed.reset) && parsed.reset >= 0 && parsed.reset <= 300_000)).toBe(true);
        expect(parsed.remaining === null || (Number.isInteger(parsed.remaining) && parsed.remaining >= 0)).toBe(true);
      }),
      { numRuns: FC_RUNS },
    );
    const huge = `${'r=1;'.repeat(250_000)}t=5`;
    const started = performance.now();
    expect(parseRateLimit(h({ ratelimit: huge }), NOW)).toEqual({ remaining: 1, reset: 5000 });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('parseRateLimit: a draft-8+ list of quotas, the one that binds read', () => {
  it.each([
    ['the day binds, listed second', '"burst";r=4;t=1, "day";r=0;t=3600', { remaining: 0, reset: 300_000 }],
    ['the day binds, listed first', '"day";r=0;t=3600, "burst";r=4;t=1', { remaining: 0, reset: 300_000 }],
    ['of two spent quotas, the later reset', '"burst";r=0;t=1, "hour";r=0;t=60, "minute";r=0;t=5', { remaining: 0, reset: 60_000 }],
    ['none spent: the fewest left', '"a";r=9;t=1, "b";r=2;t=30, "c";r=5;t=60', { remaining: 2, reset: 30_000 }],
    ['a quota that says nothing of what is left loses to one that does', '"a";t=50, "b";r=3;t=2', { remaining: 3, reset: 2000 }],
    ['with nothing left unsaid, the later reset', '"a";t=5, "b";t=7', { remaining: null, reset: 7000 }],
    ['tokens, spaces after the separators, and other parameters', 'burst; r=4; t=1; pk=:YWJj:,  day; r=0; t=9', { remaining: 0, reset: 9000 }],
    ['a malformed quota counts as unsaid', '"a";r=-1;t=x, "b";r=1;t=2', { remaining: 1, reset: 2000 }],
    ['a name holding separators and r=0 says nothing', '"x,y;r=0;t=99";r=3;t=1', { remaining: 3, reset: 1000 }],
    ['an escaped quote does not end the name', String.raw`"a\";r=0;t=99,";r=5;t=1`, { remaining: 5, reset: 1000 }],
    ['of two spent quotas, one with no reset: the one that says when', '"a";r=0, "b";r=0;t=0.5', { remaining: 0, reset: 500 }],
    ['the same, listed the other way', '"b";r=0;t=0.5, "a";r=0', { remaining: 0, reset: 500 }],
    ['a parameter without a value is no key, and hides no later one', '"a";rx;r=0;tx;t=5', { remaining: 0, reset: 5000 }],
    ['a count past 2^1024 is no count', `"a";r=${'9'.repeat(400)};t=9, "b";r=7;t=1`, { remaining: 7, reset: 1000 }],
    ['draft-7 is one quota spread over its members', 'limit=10, remaining=0, reset=5', { remaining: 0, reset: 5000 }],
    ['draft-7 beside draft-8 quotas: the one that binds', 'remaining=4, reset=1, "day";r=0;t=7', { remaining: 0, reset: 7000 }],
  ])('%s', (_label, ratelimit, expected) => {
    expect(parseRateLimit(h({ ratelimit }), NOW)).toEqual(expected);
  });

  it('the headers of draft-6 fill in what the binding quota leaves unsaid', () => {
    expect(parseRateLimit(h({ ratelimit: '"a";r=0, "b";r=1;t=9', 'ratelimit-reset': '4' }), NOW)).toEqual({ remaining: 0, reset: 4000 });
    expect(parseRateLimit(h({ ratelimit: '"a";t=3', 'ratelimit-remaining': '0' }), NOW)).toEqual({ remaining: 0, reset: 3000 });
  });

  it('serverWait waits for the binding quota, wherever it is listed', () => {
    expect(serverWait(200, h({ ratelimit: '"burst";r=4;t=1, "day";r=0;t=3600' }), NOW)).toBe(3_600_000);
    expect(serverWait(200, h({ ratelimit: '"day";r=0;t=3600, "burst";r=4;t=1' }), NOW)).toBe(3_600_000);
    // Requests left in both: the slowest pace of the two, the day's 7 requests over 3600 s (3600 / 8), not the burst's 1 / 5.
    expect(serverWait(200, h({ ratelimit: '"burst";r=4;t=1, "day";r=7;t=3600' }), NOW)).toBe(450_000);
    expect(serverWait(200, h({ ratelimit: '"burst";r=0;t=1, "day";r=9;t=3600' }), NOW)).toBe(360_000);
    expect(serverWait(429, h({ ratelimit: '"burst";r=4;t=1, "day";r=7;t=3600' }), NOW)).toBe(1000);
  });
});

describe('serverWait: what the server asked for, in one number', () => {
  it('the longer of Retry-After and the announced reset, never undercutting a Retry-After', () => {
    expect(serverWait(429, h({ 'retry-after': '2', 'ratelimit-reset': '5' }), NOW)).toBe(5000);
    expect(serverWait(429, h({ 'retry-after': '9', 'ratelimit-reset': '5' }), NOW)).toBe(9000);
    expect(serverWait(429, h({ 'x-ratelimit-reset': '4' }), NOW)).toBe(4000);
  });

  it('a reset counts on a 429, or when nothing is left; a 2xx with requests left spreads them over the window', () => {
    expect(serverWait(200, h({ ratelimit: 'limit=10, remaining=0, reset=5' }), NOW)).toBe(5000);
    // 3 left in 5 s: one every 1.25 s spends the third as the window resets, never before it.
    expect(serverWait(200, h({ ratelimit: 'limit=10, remaining=3, reset=5' }), NOW)).toBe(1250);
    expect(serverWait(304, h({ 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': '10' }), NOW)).toBe(2000);
    expect(serverWait(503, h({ 'ratelimit-remaining': '3', 'ratelimit-reset': '5' }), NOW)).toBeNull();
    expect(serverWait(503, h({ 'ratelimit-reset': '5' }), NOW)).toBeNull();
    expect(serverWait(503, h({ 'retry-after': '5' }), NOW)).toBe(5000);
  });

  it('reads the reset headers only when a reset counts (each header read costs a poll CPU)', () => {
    const reads = (status: number, fields: Record<string, string>): string[] => {
      const names: string[] = [];
      const headers = new Headers(fields);
      serverWait(status, { get: (name) => (names.push(name), headers.get(name)) }, NOW);
      return names;
    };
    const waits = ['retry-after-ms', 'x-ms-retry-after-ms', 'retry-after'];
    const remaining = ['ratelimit', 'ratelimit-remaining', 'x-ratelimit-remaining'];
    const resets = ['ratelimit-reset', 'x-ratelimit-reset', 'x-ratelimit-retry-after'];
    expect(reads(304, {})).toEqual([...waits, 'x-poll-interval', ...remaining]);
    expect(reads(200, { 'x-ratelimit-remaining': '0' })).toEqual([...waits, 'x-poll-interval', ...remaining, ...resets]);
    expect(reads(429, {})).toEqual([...waits, 'grpc-retry-pushback-ms', 'ratelimit', ...resets]);
    expect(reads(503, {})).toEqual([...waits, 'grpc-retry-pushback-ms', ...remaining]);
  });
});

describe('serverWait on a Headers: one look at the names first', () => {
  /** A real Headers that records the names read from it. */
  class Counted extends Headers {
    names: string[] = [];
    override get(name: string): string | null {
      this.names.push(name);
      return super.get(name);
    }
  }
  it('reads nothing from an answer without a Retry-After or a rate-limit name, and null it is', () => {
    const headers = new Counted({ etag: '"v1"', date: 'Wed, 02 Dec 2026 19:00:00 GMT', 'cache-control': 'no-cache' });
    expect(serverWait(200, headers, NOW)).toBeNull();
    expect(serverWait(429, headers, NOW)).toBeNull();
    expect(headers.names).toEqual([]);
  });
  it('reads as before once any such name is there, whatever its case on the wire', () => {
    const retryAfter = new Counted({ 'Retry-After': '2' });
    expect(serverWait(304, retryAfter, NOW)).toBe(2000);
    expect(retryAfter.names).toEqual(['retry-after-ms', 'x-ms-retry-after-ms', 'retry-after', 'x-poll-interval', 'ratelimit', 'ratelimit-remaining', 'x-ratelimit-remaining']);
    expect(serverWait(200, new Counted({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '4' }), NOW)).toBe(4000);
    expect(serverWait(200, new Counted({ RateLimit: 'limit=10, remaining=0, reset=5' }), NOW)).toBe(5000);
    expect(serverWait(429, new Counted({ 'RateLimit-Reset': '3' }), NOW)).toBe(3000);
  });
});

describe('the retry decision hears a limiter that sends no Retry-After', () => {
  const policy: RetryPolicy = { retries: 3, backoff: () => 100, maxRetryAfter: 300_000, interval: 0, countPaced: false, isRetryableStatus: () => true };
  it('a 429 with only X-RateLimit-Reset waits for the reset (plus the spread), not counted', () => {
    const failure = { type: 'status' as const, status: 429, headers: h({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 3) }) };
    expect(retryDecision(failure, 0, policy, NOW, 0.5)).toMatchObject({ retry: true, delay: 3300, failures: 0, reason: 'status', status: 429, retryAfter: 3000 });
  });
  it('koa-ratelimit\'s Retry-After: 0 in a window\'s last second, with a precise reset 350 ms ahead: counted, at least a second', () => {
    const failure = { type: 'status' as const, status: 429, headers: h({ 'retry-after': '0', 'x-ratelimit-reset': String((NOW + 350) / 1000) }) };
    expect(retryDecision(failure, 0, policy, NOW, 0)).toMatchObject({ retry: true, delay: 1000, failures: 1, retryAfter: null });
  });
});
