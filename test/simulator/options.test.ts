import { describe, expect, it } from 'vitest';
import { simulate, type SimulateOptions } from '../../src/simulator/index.js';
import { exactClient } from './helpers/exact-client.js';

// Every option of simulate() is checked before anything runs: a bad one is a
// TypeError naming it (nested settings by their path), never a hang, a crash
// deep inside, or a silently different experiment.
const small: SimulateOptions = { clients: 2, duration: 5000, strategies: ['pollite'] };
const KNOWN = 'naive, fetch-with-retry, exponential, pollite, equal-jitter, decorrelated-jitter';

const rejects = async (options: unknown, message: string | RegExp): Promise<void> => {
  const error = await simulate({ ...small, ...(options as object) }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TypeError);
  if (typeof message === 'string') expect((error as Error).message).toBe(message);
  else expect((error as Error).message).toMatch(message);
};

describe('simulate: interval', () => {
  // 0 made the naive loop reschedule itself at the same virtual instant until the heap ran out;
  // so did any interval below the clock's 1 ms grid that rounds back onto the same instant.
  it.each([0, -1, 1e-10, 0.5, NaN, '2000'])('refuses interval %o', async (interval) => {
    await rejects({ interval, strategies: ['naive'] }, /^Expected `interval` to be a finite number >= 1, got /);
  });

  it('still runs at the shortest interval, 1 ms', async () => {
    const result = await simulate(exactClient({ duration: 50, interval: 1 }));
    expect(result.strategies[0]!.requests).toBe(51);
  });
});

describe('simulate: names are own names, not the prototype', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])('refuses strategy %s, listing the known ones', async (name) => {
    await rejects({ strategies: [name] }, `Expected \`strategies\` to name only ${KNOWN}; got '${name}'`);
  });

  it.each(['constructor', 'toString', '__proto__'])('refuses scenario %s', async (scenario) => {
    await rejects({ scenario }, `Expected \`scenario\` to be one of outage, outage-retry-after, rate-limit, job, got '${scenario}'`);
  });
});

describe('simulate: every option checked, by name', () => {
  it.each([[null], ['x'], [[]]])('refuses options %o', async (options) => {
    await expect(simulate(options as SimulateOptions)).rejects.toThrow(TypeError);
    await expect(simulate(options as SimulateOptions)).rejects.toThrow(/^Expected `options` to be an object, got /);
  });

  it.each([
    [{ strategies: 'pollite' }, `Expected \`strategies\` to be an array of strategy names (${KNOWN}), got 'pollite'`],
    [{ strategies: [1] }, `Expected \`strategies\` to name only ${KNOWN}; got 1`],
    [{ clients: 99_999_999_999 }, 'Expected `clients` to be at most 10,000,000 (every client lives in memory), got 99999999999'],
    [{ clients: '5' }, "Expected `clients` to be an integer >= 1, got '5'"],
    [{ duration: 0 }, 'Expected `duration` to be a finite number >= 1, got 0'],
    [{ duration: 2 ** 31 }, 'Expected `duration` to be at most 2,147,483,647 (about 24.8 days), got 2147483648'],
    [{ seed: '1' }, "Expected `seed` to be an integer, got '1'"],
    [{ latency: { mean: -1, sd: 0 } }, 'Expected `latency.mean` to be a finite number >= 0, got -1'],
    [{ latency: { mean: 50 } }, 'Expected `latency.sd` to be a finite number >= 0, got undefined'],
    [{ latency: 50 }, 'Expected `latency` to be an object, got 50'],
    [{ startSpread: NaN }, 'Expected `startSpread` to be a finite number >= 0, got NaN'],
    [{ workers: 0 }, 'Expected `workers` to be an integer >= 1, got 0'],
    [{ workers: 1.5 }, 'Expected `workers` to be an integer >= 1, got 1.5'],
    [{ workers: '2' }, "Expected `workers` to be an integer >= 1, got '2'"],
    [{ clients: 3, workers: 4 }, 'Expected `workers` to be at most 3 (at most one per client, and 64), got 4'],
    [{ clients: 1000, workers: 65 }, 'Expected `workers` to be at most 64 (at most one per client, and 64), got 65'],
    [{ sever: { capacity: 5 } }, 'Unknown option `sever`: did you mean `server`?'],
  ])('%o', async (options, message) => {
    await rejects(options, message);
  });
});

describe('simulate: the server model checked, by its path', () => {
  it.each([
    ['x', "Expected `server` to be an object, got 'x'"],
    [[], 'Expected `server` to be an object, got an array'],
    [{ capacity: -5 }, 'Expected `server.capacity` to be a number >= 0 (or Infinity), got -5'],
    [{ capacity: NaN }, 'Expected `server.capacity` to be a number >= 0 (or Infinity), got NaN'],
    [{ responseTime: -100 }, 'Expected `server.responseTime` to be a finite number >= 0, got -100'],
    [{ jobDoneAt: '5' }, "Expected `server.jobDoneAt` to be a number >= 0 (or Infinity), got '5'"],
    [{ outages: 'x' }, "Expected `server.outages` to be an array of { start, end, retryAfter? }, got 'x'"],
    [{ outages: [{ start: 0, end: 10 }, { start: 5000, end: 1000 }] }, 'Expected `server.outages[1].end` to be a finite number >= 5000, got 1000'],
    [{ outages: [{ start: 0, end: Infinity }] }, 'Expected `server.outages[0].end` to be a finite number >= 0, got Infinity'],
    [{ outages: [{ start: 0, end: 10, retryAfter: 2.5 }] }, 'Expected `server.outages[0].retryAfter` to be an integer >= 0 (seconds) or null, got 2.5'],
    [{ outages: [null] }, 'Expected `server.outages[0]` to be an object, got null'],
    [{ outages: [{ start: 0, end: 10, retryafter: 5 }] }, 'Unknown option `server.outages[0].retryafter`: did you mean `server.outages[0].retryAfter`?'],
    [{ overloadRetryAfter: -1 }, 'Expected `server.overloadRetryAfter` to be an integer >= 0 (seconds) or null, got -1'],
    [{ rateLimit: { rps: -1 } }, 'Expected `server.rateLimit.rps` to be a number >= 0 (or Infinity), got -1'],
    [{ rateLimit: { rps: 5, retryAfter: '5' } }, "Expected `server.rateLimit.retryAfter` to be an integer >= 0 (seconds) or null, got '5'"],
    [{ rateLimit: null }, 'Expected `server.rateLimit` to be an object, got null'],
    [{ bodyBytes: 1.5 }, 'Expected `server.bodyBytes` to be an integer >= 0, got 1.5'],
    [{ bodyBytes: 2 ** 30 }, 'Expected `server.bodyBytes` to be at most 100,000,000 (every 2xx body is one string), got 1073741824'],
    [{ capcity: 5 }, 'Unknown option `server.capcity`: did you mean `server.capacity`?'],
  ])('%o', async (server, message) => {
    await rejects({ server }, message);
  });

  it('accepts Infinity where it means "no limit", and null for "no Retry-After"', async () => {
    const result = await simulate({
      ...small,
      server: { capacity: Infinity, jobDoneAt: Infinity, overloadRetryAfter: null, rateLimit: { rps: Infinity }, outages: [{ start: 0, end: 0, retryAfter: null }] },
    });
    // Seed 1, with no limit anywhere and no outage: both clients get a 200, then a 304.
    expect(result.strategies[0]).toMatchObject({ requests: 4, statuses: { 200: 2, 304: 2 } });
  });

  it('keeps the scenario value for an `undefined` setting', async () => {
    const plain = await simulate(small);
    const result = await simulate({ ...small, server: { capacity: undefined, outages: undefined } });
    expect(result.server).toEqual(plain.server);
    expect(result).toEqual(plain);
  });
});
