import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { AUTO_WORKERS_FROM, workersOf } from '../../src/cli/simulate/jobs.js';
import { FleetMetrics } from '../../src/simulator/metrics.js';
import { normalizeOptions } from '../../src/simulator/normalize-options.js';
import { runStrategy, simulate } from '../../src/simulator/simulate.js';
import type { SimulateOptions } from '../../src/simulator/simulate-options.js';
import { exactClient } from './helpers/exact-client.js';

// A fleet split into shards (and threads) must give the numbers of the whole
// fleet in one piece: each client draws from its own streams, and the server
// takes the requests of one ms by client number, whoever ran them.

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built simulator: worker threads run dist/simulator/shard-worker.js, which only the build makes. */
const built = async (): Promise<typeof import('../../src/simulator/index.js')> => {
  const entry = join(root, 'dist', 'simulator', 'index.js');
  if (!existsSync(join(root, 'dist', 'simulator', 'shard-worker.js'))) throw new Error('dist/simulator is missing: run `npm run build` first');
  return (await import(pathToFileURL(entry).href)) as typeof import('../../src/simulator/index.js');
};

const runs: Array<[string, SimulateOptions]> = [
  ['outage', { clients: 60, scenario: 'outage', duration: 40_000, interval: 1000, strategies: ['pollite', 'naive', 'decorrelated-jitter'] }],
  ['rate-limit', { clients: 60, scenario: 'rate-limit', duration: 20_000, strategies: ['pollite', 'naive', 'fetch-with-retry'] }],
  ['job', { clients: 40, scenario: 'job', duration: 30_000, interval: 700, strategies: ['pollite', 'exponential'] }],
  ['outage-retry-after', { clients: 50, scenario: 'outage-retry-after', duration: 30_000, interval: 1000, strategies: ['pollite', 'equal-jitter'] }],
  // Naive clients keep several requests in flight at once (a 3 s latency, polled every second).
  ['slow network', { clients: 30, scenario: 'outage', duration: 20_000, interval: 1000, latency: { mean: 1500, sd: 500 }, strategies: ['naive', 'pollite'] }],
  // Every first request in the same ms, against a limit of 20 a second: which ones get through is the server's order.
  ['burst', { clients: 50, scenario: 'rate-limit', duration: 15_000, interval: 1000, latency: { mean: 10, sd: 0 }, startSpread: 0, server: { rateLimit: { rps: 20 } }, strategies: ['pollite', 'naive'] }],
  // A server answering at once: windows of 1 ms, the answers a ms late in the run but at their own virtual time.
  ['instant server', { clients: 30, scenario: 'rate-limit', duration: 10_000, interval: 500, server: { responseTime: 0 }, strategies: ['pollite', 'naive'] }],
];

describe('simulate: a fleet split into shards', () => {
  it.each(runs)('%s: the same numbers from 1, 2 and 7 shards in this thread', async (_name, options) => {
    const o = normalizeOptions(options);
    for (const strategy of o.strategies) {
      const whole = await runStrategy(strategy, options, o, { shards: 1, threads: false });
      for (const shards of [2, 7]) expect(await runStrategy(strategy, options, o, { shards, threads: false })).toEqual(whole);
      expect(whole.requests).toBeGreaterThan(0);
    }
  });

  it('the same numbers from 2 and 3 worker threads as from one thread (the built package)', async () => {
    const { simulate } = await built();
    // The last: naive clients whose ticks fall in the ms their answers come back, in a Retry-After's shade.
    const ticksOnAnswers: SimulateOptions = {
      clients: 4,
      scenario: 'rate-limit',
      duration: 2_000,
      interval: 10,
      latency: { mean: 0, sd: 0 },
      server: { rateLimit: { rps: 100, retryAfter: 1 } },
      strategies: ['naive'],
    };
    for (const options of [runs[0]![1], runs[4]![1], ticksOnAnswers]) {
      const alone = await simulate(options);
      expect(await simulate({ ...options, workers: 2 })).toEqual(alone);
      expect(await simulate({ ...options, workers: 3 })).toEqual(alone);
    }
  });

  it('a worker that fails to start rejects the run with its error, and leaves no thread behind', async () => {
    const { threadShard } = (await import(pathToFileURL(join(root, 'dist', 'simulator', 'thread-shard.js')).href)) as typeof import('../../src/simulator/thread-shard.js');
    await built();
    const shard = threadShard({ strategy: 'no-such-strategy', options: { clients: 2 }, from: 0, to: 2 });
    await expect(shard.advance(10, { request: [], answer: [] })).rejects.toThrow(TypeError);
    await expect(shard.report()).rejects.toThrow(TypeError);
    await shard.close();
  });
});

describe('simulate: the ends of a run', () => {
  it('judges no recovery that comes after the run', async () => {
    // The clients are all healthy when the run ends, 5 s before the outage would even start.
    const result = await simulate({ clients: 50, duration: 20_000, scenario: 'outage', server: { outages: [{ start: 25_000, end: 30_000 }] }, strategies: ['pollite'] });
    expect(result.strategies[0]!.timeTo99Healthy).toBeNull();
    // Within the run, it is judged.
    const within = await simulate({ clients: 50, duration: 20_000, scenario: 'outage', server: { outages: [{ start: 5_000, end: 8_000 }] }, strategies: ['pollite'] });
    expect(within.strategies[0]!.timeTo99Healthy).toBeGreaterThanOrEqual(0);
  });

  it('delivers the answers due at the last instant from a server answering at once', async () => {
    // One request every ms from 0 to 10 inclusive, each answered in the same ms: 11 requests, 11 answers.
    const result = await simulate(exactClient({ duration: 10, interval: 1, scenario: 'job', server: { responseTime: 0, jobDoneAt: Infinity } }));
    expect(result.strategies[0]).toMatchObject({ requests: 11, statuses: { 200: 11 } });
  });
});

describe('FleetMetrics: the healthy share, judged at the end of each ms', () => {
  const fleet = (clients: number, recovery: number): FleetMetrics =>
    new FleetMetrics({ strategy: 's', clients, duration: 10_000, recovery, jobDoneAt: Infinity });

  it('does not depend on the order of the changes within one ms', () => {
    // 100 clients, 98 healthy by 4999; at 5000 one turns unhealthy and two turn healthy: 99 at the end of 5000.
    const before = { time: Array.from({ length: 98 }, () => 4999), delta: Array.from({ length: 98 }, () => 1) };
    const downFirst = fleet(100, 4000);
    downFirst.health([before, { time: [5000, 5000, 5000], delta: [-1, 1, 1] }], Infinity);
    const upFirst = fleet(100, 4000);
    upFirst.health([before, { time: [5000, 5000], delta: [1, 1] }, { time: [5000], delta: [-1] }], Infinity);
    expect(downFirst.result([]).timeTo99Healthy).toBe(1000);
    expect(upFirst.result([]).timeTo99Healthy).toBe(1000);
  });

  it('waits for every change of a ms before judging it', () => {
    const metrics = fleet(100, 0);
    metrics.health([{ time: Array.from({ length: 99 }, () => 300), delta: Array.from({ length: 99 }, () => 1) }], 300);
    // 300 is not complete yet: its changes are held.
    expect(metrics.result([]).timeTo99Healthy).toBeNull();
    metrics.health([{ time: [300], delta: [-1] }], 301);
    // 98 at the end of 300: not yet.
    expect(metrics.result([]).timeTo99Healthy).toBeNull();
    metrics.health([{ time: [420], delta: [1] }], 421);
    expect(metrics.result([]).timeTo99Healthy).toBe(420);
  });

  it('judges the moment of recovery itself, with every change up to it', () => {
    const metrics = fleet(10, 2000);
    metrics.health([{ time: Array.from({ length: 10 }, (_, i) => 1000 + i), delta: Array.from({ length: 10 }, () => 1) }], 2001);
    expect(metrics.result([]).timeTo99Healthy).toBe(0);
  });
});

describe('pollite simulate --workers (the built bin)', () => {
  it('prints the same JSON with 2 workers as with 1', async () => {
    const { ensureBin, runCli } = await import('../cli/helpers/run-cli.js');
    ensureBin();
    const args = ['simulate', '--clients', '300', '--duration', '20s', '--interval', '1s', '--strategies', 'pollite,naive', '--json'];
    const [one, two] = [await runCli([...args, '--workers', '1']), await runCli([...args, '--workers', '2'])];
    expect([one.code, two.code]).toEqual([0, 0]);
    const result = (run: { stdout: string }): unknown => {
      const { memory: _, ...rest } = JSON.parse(run.stdout) as { memory: unknown };
      return rest;
    };
    expect(result(two)).toEqual(result(one));
    expect((result(one) as { strategies: unknown[] }).strategies).toHaveLength(2);
  });
});

describe('pollite simulate --workers auto', () => {
  it('splits a fleet of 20,000 clients or more over the cores (up to 4), and runs a smaller one in one thread', () => {
    const cores = Math.min(availableParallelism(), 4);
    expect([workersOf(undefined, AUTO_WORKERS_FROM - 1), workersOf('auto', AUTO_WORKERS_FROM - 1)]).toEqual([1, 1]);
    expect([workersOf(undefined, AUTO_WORKERS_FROM), workersOf(' auto ', 100_000)]).toEqual([cores, cores]);
    // A number is taken as given, but never more threads than clients.
    expect([workersOf('3', 1000), workersOf('8', 2)]).toEqual([3, 2]);
  });
});
