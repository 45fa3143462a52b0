import type { StrategyMetrics } from './metrics.js';
import type { ScenarioName } from './scenarios.js';
import type { ServerModel } from './server-model.js';

/**
 * Options of `simulate`. Times are virtual ms. Every option is
 * checked before anything runs: a bad one is a TypeError naming it
 * (``Expected `clients` to be an integer >= 1, got 0``), as is a key not
 * listed here.
 */
export interface SimulateOptions {
  /** Clients in the fleet: an integer from 1 to 10,000,000 (each lives in memory). @default 1000 */
  clients?: number;
  /** What happens to the server: `outage`, `outage-retry-after`, `rate-limit` or `job`. @default 'outage' */
  scenario?: ScenarioName;
  /**
   * Strategies to compare (names of `STRATEGIES`, at least one), each in its
   * own run with the same seed.
   * @default ['naive', 'exponential', 'pollite']
   */
  strategies?: string[];
  /** Seed of every random draw, an integer: the same seed gives the same numbers. @default 1 */
  seed?: number;
  /** Virtual time simulated, from 1 ms to 2^31 - 1 ms (about 24.8 days). @default 300000 */
  duration?: number;
  /** ms between polls, at least 1 (the virtual clock's resolution). @default 2000 (poll's default) */
  interval?: number;
  /**
   * Replaces (per key) the scenario's server model; `undefined` entries keep
   * the scenario's value. The result's `description` then says what the
   * customised server does instead of the scenario's text.
   */
  server?: ServerModel;
  /** One-way network delay, |Normal(mean, sd)| ms; both finite and >= 0. @default { mean: 50, sd: 10 } */
  latency?: {
    /** Mean one-way delay, ms. */
    mean: number;
    /** Its standard deviation, ms. */
    sd: number;
  };
  /** Clients start at uniformly random times in `[0, startSpread)`, a finite number >= 0. @default interval */
  startSpread?: number;
  /**
   * Threads the fleet runs on (an integer from 1 to 64, at most one per
   * client): with more than one, the clients are split between worker
   * threads (`node:worker_threads`: Node, Deno and Bun) that meet at every
   * `server.responseTime` ms of virtual time to hand the server their
   * requests. The results are the same whatever the number: each client
   * draws from its own seeded streams, and the server takes requests that
   * arrive in the same ms by client number. Worth it from some 20,000
   * clients on; below that the threads mostly wait for each other.
   * @default 1
   */
  workers?: number;
}

/** What `simulate` found. */
export interface SimulationResult {
  /** The scenario simulated. */
  scenario: ScenarioName;
  /** What the server does: the scenario's text, or one made from the settings when `server` customised them. */
  description: string;
  /** Clients in the fleet. */
  clients: number;
  /** The seed every draw came from: the same seed gives the same numbers. */
  seed: number;
  /** Virtual time simulated, ms. */
  duration: number;
  /** ms between polls. */
  interval: number;
  /** The server model the fleet ran against: the scenario's, with `server`'s settings over it. */
  server: ServerModel;
  /** What each strategy did, in the order asked for. */
  strategies: StrategyMetrics[];
}
