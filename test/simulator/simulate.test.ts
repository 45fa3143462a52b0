import { describe, expect, it } from 'vitest';
import { simulate, type SimulateOptions } from '../../src/simulator/index.js';

// One client, a fixed 10 ms each way, an instant server: every number below
// can be worked out by hand from the poll loop's rules.
const exact: SimulateOptions = {
  clients: 1,
  interval: 1000,
  latency: { mean: 10, sd: 0 },
  startSpread: 0,
};

describe('simulate: tiny scenarios worked out by hand', () => {
  it('polls a job to completion with ETag/304 (pollite) and without (naive)', async () => {
    const result = await simulate({
      ...exact,
      scenario: 'job',
      duration: 10_000,
      strategies: ['pollite', 'naive'],
      server: { jobDoneAt: 2500, responseTime: 0, capacity: Infinity, bodyBytes: 100 },
    });
    const [pollite, naive] = result.strategies;
    // pollite: sends at 0, 1020, 2040, 3060 (each 20 ms round trip + 1000 ms interval);
    // the answers arrive at 20 (200), 1040 (304), 2060 (304), 3080 (200 done).
    expect(pollite).toMatchObject({
      requests: 4,
      statuses: { 200: 2, 304: 2 },
      bytes: 200,
      seen: { clients: 1, p50: 580, p99: 580, max: 580 },
      ignoredRetryAfter: 0,
      gaveUp: 0,
    });
    expect(pollite!.rps).toEqual([1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
    // naive: a fixed rate, sends at 0, 1000, 2000, 3000; full bodies every time.
    expect(naive).toMatchObject({ requests: 4, statuses: { 200: 4 }, bytes: 400, seen: { p50: 520 } });
  });

  it('backs off exponentially through an outage and measures the recovery', async () => {
    const result = await simulate({
      ...exact,
      scenario: 'outage',
      duration: 12_000,
      strategies: ['exponential'],
      server: { outages: [{ start: 1500, end: 6000 }], responseTime: 0, capacity: Infinity },
    });
    // Sends at 0 (200), 1020 (304), 2040 (503: wait 1000 + 2000), 5060 (503: wait 1000 + 4000),
    // 10080 (304, healthy again at 10100), 11100 (304).
    expect(result.strategies[0]).toMatchObject({
      requests: 6,
      requestsDuringOutage: 2,
      statuses: { 200: 1, 304: 3, 503: 2 },
      timeTo99Healthy: 4100,
      peakRpsAfterRecovery: 1,
      seen: null,
    });
    expect(result.strategies[0]!.rps).toEqual([1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1]);
  });

  it('counts requests sent before a Retry-After had passed (seed 1: these exact counts)', async () => {
    const result = await simulate({
      clients: 20,
      scenario: 'rate-limit',
      duration: 20_000,
      strategies: ['naive', 'pollite'],
    });
    const [naive, pollite] = result.strategies;
    // naive ignores most of its Retry-Afters; pollite none, with fewer 429s and mostly 304s.
    expect(naive).toMatchObject({ requests: 199, statuses: { 200: 100, 429: 98 }, ignoredRetryAfter: 90 });
    expect(pollite).toMatchObject({ requests: 122, statuses: { 200: 19, 304: 75, 429: 26 }, ignoredRetryAfter: 0 });
  });
});

describe('simulate: repeatable', () => {
  const options: SimulateOptions = { clients: 15, scenario: 'outage', duration: 15_000, interval: 1000, seed: 42 };

  it('gives identical results for the same seed', async () => {
    const [a, b] = [await simulate(options), await simulate(options)];
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('gives these results for seed 42, and others for seed 43', async () => {
    const [a, b] = [await simulate(options), await simulate({ ...options, seed: 43 })];
    // Requests per second of each strategy (naive, exponential, pollite): the outage is at 4-6 s.
    expect(a.strategies.map((s) => s.rps)).toEqual([
      [15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15],
      [15, 13, 14, 15, 0, 0, 10, 13, 14, 14, 12, 15, 13, 14, 14],
      [15, 13, 14, 15, 1, 13, 1, 1, 5, 11, 12, 15, 15, 15, 11],
    ]);
    expect(b.strategies.map((s) => s.rps)).toEqual([
      [14, 14, 16, 15, 16, 13, 16, 15, 15, 15, 15, 16, 14, 15, 15],
      [14, 12, 12, 14, 1, 0, 12, 15, 13, 14, 13, 15, 11, 13, 13],
      [14, 12, 12, 14, 1, 14, 1, 1, 5, 13, 13, 15, 13, 13, 10],
    ]);
    expect([a, b].map((r) => r.strategies.map((s) => s.requests))).toEqual([[225, 176, 157], [224, 172, 151]]);
  });
});

describe('simulate: bad options', () => {
  it.each([
    [{ clients: 0 }, 'Expected `clients` to be an integer >= 1, got 0'],
    [{ clients: 1.5 }, 'Expected `clients` to be an integer >= 1, got 1.5'],
    [{ scenario: 'flood' }, "Expected `scenario` to be one of outage, outage-retry-after, rate-limit, job, got 'flood'"],
    [{ strategies: ['pollite', 'yolo'] }, "Expected `strategies` to name only naive, fetch-with-retry, exponential, pollite, equal-jitter, decorrelated-jitter; got 'yolo'"],
    [{ strategies: [] }, 'Expected `strategies` to name at least one strategy'],
    [{ seed: 0.5 }, 'Expected `seed` to be an integer, got 0.5'],
    [{ duration: -1 }, 'Expected `duration` to be a finite number >= 1, got -1'],
    [{ interval: Infinity }, 'Expected `interval` to be a finite number >= 1, got Infinity'],
  ])('%o rejects with a TypeError naming the option', async (options, message) => {
    await expect(simulate(options as SimulateOptions)).rejects.toThrow(new TypeError(message));
  });
});

describe('simulate: fetchWithRetry in virtual time', () => {
  it('retries an outage with its own backoff and sees the job done', async () => {
    const result = await simulate({
      ...exact,
      scenario: 'job',
      duration: 20_000,
      strategies: ['fetch-with-retry'],
      server: { jobDoneAt: 2500, responseTime: 0, capacity: Infinity, outages: [{ start: 1500, end: 4000 }] },
    });
    const [s] = result.strategies;
    // Seed 1: four 503s during the outage; the job, done at 2.5 s, is seen 1892 ms later, 392 ms after the
    // recovery at 4 s (within one of fetchWithRetry's jittered backoffs, which are capped at 10 s).
    expect(s).toMatchObject({ requests: 7, requestsDuringOutage: 4, statuses: { 200: 3, 503: 4 }, gaveUp: 0 });
    expect(s!.seen).toEqual({ clients: 1, p50: 1892, p99: 1892, max: 1892 });
  });
});
