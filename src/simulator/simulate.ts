import { FleetMetrics, type StrategyMetrics } from './metrics.js';
import { noAnswers, type Answers } from './network.js';
import { normalizeOptions } from './normalize-options.js';
import { ModelledServer } from './server-model.js';
import { FleetShard, type RunOptions, type WindowReport } from './shard.js';
import type { SimulateOptions, SimulationResult } from './simulate-options.js';
import type { Strategy } from './strategies.js';
import type { Shard } from './thread-shard.js';

/** How a run splits its fleet: into `shards` parts, run in this thread or (`threads`, used when the server takes 2 ms or more to answer) all but the first in worker threads. */
export interface Split {
  shards: number;
  threads: boolean;
}

/** Clients `from` to `to - 1` in this thread, one call at a time, in the order they were made (a window may be asked for while one runs). */
function localShard(strategy: Strategy, o: RunOptions, from: number, to: number): Shard {
  const shard = new FleetShard(strategy, o, from, to);
  let last: Promise<unknown> = Promise.resolve();
  const queued = <T>(call: () => T | Promise<T>): Promise<T> => {
    const result = last.then(call);
    last = result.catch(() => undefined);
    return result;
  };
  return {
    advance: (until, answers) => queued(() => shard.advance(until, answers)),
    report: () => queued(() => shard.report()),
    close: async () => undefined,
  };
}

/**
 * The shards of a fleet of `o.clients`, split into `split.shards` runs of
 * consecutive client numbers; with `threads`, the first in this thread (which
 * also runs the server between windows) and each other in a worker thread.
 */
async function openShards(strategy: Strategy, options: SimulateOptions, o: RunOptions, split: Split): Promise<Shard[]> {
  const bounds = Array.from({ length: split.shards + 1 }, (_, i) => Math.floor((i * o.clients) / split.shards));
  const ranges = bounds.slice(1).map((to, i) => [bounds[i]!, to] as const);
  if (!split.threads) return ranges.map(([from, to]) => localShard(strategy, o, from, to));
  let threadShard: typeof import('./thread-shard.js').threadShard;
  try {
    ({ threadShard } = await import('./thread-shard.js'));
  } catch (error) {
    throw new Error(`\`workers\` above 1 needs node:worker_threads (Node, Deno, Bun): ${(error as Error).message}`);
  }
  return ranges.map(([from, to], i) => (i === 0 ? localShard(strategy, o, from, to) : threadShard({ strategy: strategy.name, options, from, to })));
}

/**
 * Runs one strategy's fleet against a fresh server, in windows of virtual
 * time: every shard runs its clients through a window, then the server
 * answers the window's arrivals in the order they reached it (ties: by
 * client, then by request), and the answers travel back in a later window
 * (a window is short enough that none is due sooner). Worker threads run a
 * window ahead, with windows of half the response time, so that none waits
 * for the server's turn. Every run with the same seed draws the same
 * numbers, however the fleet is split.
 */
export async function runStrategy(strategy: Strategy, options: SimulateOptions, o: RunOptions, split: Split): Promise<StrategyMetrics> {
  const server = new ModelledServer(o.server);
  const answerIndex = new Map(server.answers.map((answer, i) => [answer, i]));
  const outages = o.server.outages ?? [];
  const recovery = outages.length === 0 ? null : Math.max(...outages.map((outage) => outage.end));
  const metrics = new FleetMetrics({ strategy: strategy.name, clients: o.clients, duration: o.duration, recovery, jobDoneAt: o.server.jobDoneAt ?? Infinity });
  // A server answering in under 2 ms leaves windows of 1 ms, a meeting of the threads per virtual ms: slower than one thread, with the same numbers.
  const threads = split.threads && server.responseTime >= 2;
  // Windows ahead: the answers to window k are handed over before window k + ahead + 1 runs, so a window is at most rt / (ahead + 1).
  const ahead = threads ? 1 : 0;
  const window = Math.max(1, Math.floor(server.responseTime / (ahead + 1)));
  // Below 1 ms, answers due in the window they were asked in come at the start of the next, at their own virtual time.
  const lagging = server.responseTime < window;
  // With answers late by a window, the last instant's answers come in windows of their own, at `duration`, until no more requests arrive.
  let windows = Math.floor(o.duration / window) + 1;
  const untilOf = (k: number): number => Math.min(k * window + window - 1, o.duration);
  const shards = await openShards(strategy, options, o, { ...split, threads });
  const running = new Map<number, Promise<WindowReport[]>>();
  const start = (k: number, answers: readonly Answers[]): void => {
    const reports = Promise.all(shards.map((shard, i) => shard.advance(untilOf(k), answers[i]!)));
    // Awaited in turn below; a failure of a window ahead is seen there, not as an unhandled rejection.
    reports.catch(() => undefined);
    running.set(k, reports);
  };
  try {
    for (let k = 0; k <= ahead && k < windows; k += 1) start(k, shards.map(noAnswers));
    for (let k = 0; k < windows; k += 1) {
      const reports = await running.get(k)!;
      running.delete(k);
      const answers = shards.map(noAnswers);
      const order: Array<[shard: number, column: number]> = [];
      reports.forEach((report, shard) => {
        for (let column = 0; column < report.arrivals.time.length; column += 1) order.push([shard, column]);
      });
      order.sort(([s, i], [t, j]) => {
        const [x, y] = [reports[s]!.arrivals, reports[t]!.arrivals];
        return x.time[i]! - y.time[j]! || x.client[i]! - y.client[j]! || x.request[i]! - y.request[j]!;
      });
      for (const [shard, column] of order) {
        const arrivals = reports[shard]!.arrivals;
        const time = arrivals.time[column]!;
        metrics.arrived(time, server.outageAt(time) !== undefined);
        const to = answers[shard]!;
        to.request.push(arrivals.request[column]!);
        to.answer.push(answerIndex.get(server.handle(time, arrivals.ifNoneMatch[column]!))!);
      }
      metrics.health(
        reports.map((report) => report.health),
        lagging ? untilOf(k) : untilOf(k) + 1,
      );
      if (lagging && k === windows - 1 && order.length > 0) windows += 1;
      if (k + ahead + 1 < windows) start(k + ahead + 1, answers);
    }
    // Everything up to the last instant is in; a recovery after it is never judged.
    metrics.health([], o.duration + 1);
    return metrics.result(await Promise.all(shards.map((shard) => shard.report())));
  } finally {
    await Promise.all(shards.map((shard) => shard.close()));
  }
}

/**
 * Runs fleets of simulated clients against a modelled server in virtual
 * time, one run per strategy, each driving pollite's real `poll` (or the
 * naive loop it is compared with) through an injected clock and `fetch`.
 * Five virtual minutes of a thousand clients take well under a second;
 * `workers` splits a large fleet over threads, with the same results.
 *
 * @example
 * const result = await simulate({ clients: 10_000, scenario: 'outage', seed: 7 });
 * for (const s of result.strategies) console.log(s.strategy, s.requests, s.peakRpsAfterRecovery);
 */
export async function simulate(options: SimulateOptions = {}): Promise<SimulationResult> {
  const o = normalizeOptions(options);
  const strategies: StrategyMetrics[] = [];
  const split = { shards: o.workers, threads: o.workers > 1 };
  for (const strategy of o.strategies) strategies.push(await runStrategy(strategy, options, o, split));
  return {
    scenario: o.name,
    description: o.description,
    clients: o.clients,
    seed: o.seed,
    duration: o.duration,
    interval: o.interval,
    server: o.server,
    strategies,
  };
}
