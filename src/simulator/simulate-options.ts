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
