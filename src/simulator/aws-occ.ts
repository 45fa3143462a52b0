import { decorrelatedJitter, equalJitter, exponential, fullJitter, type Backoff } from '../index.js';
import { ClientHeap } from './client-heap.js';
import { deriveSeed, mulberry32, normals } from './prng.js';

/** The strategies of the AWS study, each built from pollite's own backoff functions. */
export type OccStrategy = 'none' | 'exponential' | 'full-jitter' | 'equal-jitter' | 'decorrelated-jitter';

/** Every strategy of the AWS study, in the order the study presents them. */
export const OCC_STRATEGIES: readonly OccStrategy[] = ['none', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'];

/**
 * The original simulator (aws-samples/aws-arch-backoff-simulator) makes every
 * strategy with `base = 5, cap = 2000` and its ceiling is `expo(n) = base · 2^n`,
 * so the first retry's ceiling is 10 ms. pollite's ceiling is `base · 2^(n-1)`:
 * the exponential, full and equal jitter strategies get `base: 10` for the
 * same ceilings. Decorrelated jitter uses no ceiling: its base is its floor
 * (`min(cap, uniform(base, previous · 3))`, starting from `base`), and the
 * original's floor is 5 ms, so it gets `base: 5`. With `base: 10` it would
 * wait twice as long at first and make 15% fewer calls than the original.
 */
const ORIGINAL_BASE = 5;
const CEILING_BASE = ORIGINAL_BASE * 2;
const CAP = 2000;

const backoffFor = (strategy: OccStrategy, random: () => number): Backoff => {
  const options = { base: CEILING_BASE, cap: CAP, random };
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
      return decorrelatedJitter({ ...options, base: ORIGINAL_BASE });
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
  /** Each client's last backoff, handed back to the (pure) strategy: decorrelated jitter grows from it. */
  const previous = new Float64Array(clients);
  const backoff = backoffFor(strategy, jitter);
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
    previous[client] = backoff(failures[client]!, previous[client]);
    queue.push(client, learnedAt + previous[client]! + hop());
  }
  return { calls, completion };
}

/** What the original simulator printed at 100 clients: mean calls and completion time (ms) of 100 runs. */
export const OCC_ORIGINAL_AT_100: Readonly<Record<OccStrategy, { calls: number; completion: number }>> = Object.freeze({
  none: { calls: 2423, completion: 2020 },
  exponential: { calls: 1848, completion: 63_400 },
  'full-jitter': { calls: 796, completion: 5000 },
  'equal-jitter': { calls: 812, completion: 6600 },
  'decorrelated-jitter': { calls: 1005, completion: 4600 },
});

/** How far a reproduction may land from the original's figures: 3%. */
export const OCC_TOLERANCE = 0.03;

/** One strategy's figures here against the original's, at 100 clients. */
export interface OccComparison {
  /** The backoff strategy. */
  strategy: OccStrategy;
  /** Mean calls here. */
  calls: number;
  /** Mean calls of the original. */
  originalCalls: number;
  /** Mean completion time here, ms. */
  completion: number;
  /** Mean completion time of the original, ms. */
  originalCompletion: number;
  /** `calls / originalCalls - 1`. */
  callsOff: number;
  /** `completion / originalCompletion - 1`. */
  completionOff: number;
  /** Both within {@link OCC_TOLERANCE}. */
  within: boolean;
}

/** The study's points at 100 clients against the original's ({@link OCC_ORIGINAL_AT_100}); empty when the sweep has no 100. */
export function compareOccToOriginal(points: readonly OccPoint[]): OccComparison[] {
  return points
    .filter((p) => p.clients === 100)
    .map((p) => {
      const original = OCC_ORIGINAL_AT_100[p.strategy];
      const callsOff = p.calls / original.calls - 1;
      const completionOff = p.completion / original.completion - 1;
      return {
        strategy: p.strategy,
        calls: p.calls,
        originalCalls: original.calls,
        completion: p.completion,
        originalCompletion: original.completion,
        callsOff,
        completionOff,
        within: Math.abs(callsOff) <= OCC_TOLERANCE && Math.abs(completionOff) <= OCC_TOLERANCE,
      };
    });
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
