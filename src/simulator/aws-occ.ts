import { decorrelatedJitter, equalJitter, exponential, fullJitter, type Backoff } from '../index.js';
import { ClientHeap } from './client-heap.js';
import { deriveSeed, mulberry32, normals } from './prng.js';

/** The strategies of the AWS study, each built from pollite's own backoff functions. */
export type OccStrategy = 'none' | 'exponential' | 'full-jitter' | 'equal-jitter' | 'decorrelated-jitter';

/** Every strategy of the AWS study, in the order the study presents them. */
export const OCC_STRATEGIES: readonly OccStrategy[] = ['none', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'];

/** The study's parameters: first retry's ceiling 10 ms, cap 2000 ms. */
const BASE = 10;
const CAP = 2000;

const backoffFor = (strategy: OccStrategy, random: () => number): Backoff => {
  const options = { base: BASE, cap: CAP, random };
  switch (strategy) {
    case 'none':
      return () => 0;
    case 'exponential':
      return exponential(options);
    case 'full-jitter':
      return fullJitter(options);
    case 'equal-jitter':
      return equalJitter(options);
    case 'decorrelated-jitter':
      return decorrelatedJitter(options);
  }
};

/** One run's outcome. */
export interface OccRun {
  /** Writes that reached the server. */
  calls: number;
  /** When the last client learned of its success, ms. */
  completion: number;
}

/**
 * One run of the study's model: `clients` clients each update one shared
 * row once with optimistic concurrency. An attempt reads the version, then
 * writes with it as soon as the read's answer arrives; the write succeeds
 * only if the version is unchanged. Every one-way hop takes
 * |Normal(10 ms, 2 ms)|. After the n-th failed write the client sleeps
 * `backoff(n)` and starts again with a read. The clock only ever moves
 * through a priority queue of the server's read and write arrivals, one
 * pending per client.
 */
export function runOcc(strategy: OccStrategy, clients: number, seed: number): OccRun {
  const delay = normals(mulberry32(deriveSeed(seed, 1)), 10, 2);
  const jitter = mulberry32(deriveSeed(seed, 2));
  const hop = (): number => Math.abs(delay());
  const queue = new ClientHeap(clients);
  const writing = new Uint8Array(clients);
  const seenVersion = new Int32Array(clients);
  const failures = new Int32Array(clients);
  const backoffs = Array.from({ length: clients }, () => backoffFor(strategy, jitter));
  let version = 0;
  let calls = 0;
  let completion = 0;

  for (let client = 0; client < clients; client += 1) queue.push(client, hop());
  for (let client = queue.pop(); client >= 0; client = queue.pop()) {
    const time = queue.due[client]!;
    if (writing[client] === 0) {
      // The read reaches the server; the write follows as soon as its answer is back.
      seenVersion[client] = version;
      writing[client] = 1;
      queue.push(client, time + hop() + hop());
      continue;
    }
    calls += 1;
    writing[client] = 0;
    const learnedAt = time + hop();
    if (seenVersion[client] === version) {
      version += 1;
      completion = Math.max(completion, learnedAt);
      continue;
    }
    failures[client]! += 1;
    queue.push(client, learnedAt + backoffs[client]!(failures[client]!) + hop());
  }
  return { calls, completion };
}

/** Options of {@link awsOccStudy}. */
export interface OccStudyOptions {
  /** Client counts to sweep. @default 10, 20, ... 190 */
  clients?: number[];
  /** Runs averaged per point. @default 100 */
  runs?: number;
  /** @default all five */
  strategies?: OccStrategy[];
  /** @default 1 */
  seed?: number;
}

/** One point of the sweep: means over the runs. */
export interface OccPoint {
  /** Clients competing for the row. */
  clients: number;
  /** The backoff strategy. */
  strategy: OccStrategy;
  /** Mean writes that reached the server, over the runs ({@link OccRun.calls}). */
  calls: number;
  /** Mean ms until the last client learned of its success, over the runs ({@link OccRun.completion}). */
  completion: number;
}

/**
 * Reproduces the AWS "Exponential Backoff And Jitter" study (2015): for
 * each client count and strategy, the mean calls and completion time over
 * `runs` runs. Run `r` of every strategy draws the same network delays
 * seed, so strategies are compared on common random numbers.
 */
export function awsOccStudy(options: OccStudyOptions = {}): OccPoint[] {
  const sweep = options.clients ?? Array.from({ length: 19 }, (_, i) => (i + 1) * 10);
  const runs = options.runs ?? 100;
  const strategies = options.strategies ?? [...OCC_STRATEGIES];
  const seed = options.seed ?? 1;
  if (!Array.isArray(sweep) || !sweep.every((n) => Number.isInteger(n) && n >= 1)) {
    throw new TypeError('Expected `clients` to be an array of positive integers');
  }
  if (!Number.isInteger(runs) || runs < 1) throw new TypeError('Expected `runs` to be a positive integer');
  for (const strategy of strategies) {
    if (!OCC_STRATEGIES.includes(strategy)) throw new TypeError(`Expected \`strategies\` to name only ${OCC_STRATEGIES.join(', ')}; got ${strategy}`);
  }
  const points: OccPoint[] = [];
  for (const clients of sweep) {
    for (const strategy of strategies) {
      let calls = 0;
      let completion = 0;
      for (let run = 0; run < runs; run += 1) {
        const result = runOcc(strategy, clients, deriveSeed(seed, clients * 100_003 + run));
        calls += result.calls;
        completion += result.completion;
      }
      points.push({ clients, strategy, calls: calls / runs, completion: completion / runs });
    }
  }
  return points;
}
