/**
 * A backoff strategy, pure: given the retry number (1 for the first retry)
 * and the backoff it chose for the retry before (`previous`, 0 for the
 * first), the number of milliseconds to wait before it. It keeps no state
 * between calls, so one strategy can serve any number of loops at once.
 * `poll` also passes its interval (the throttled one, when the server
 * throttles), which its own default backoff scales with; the strategies of
 * pollite ignore it.
 *
 * @example
 * const backoff: Backoff = fullJitter({ base: 500, cap: 10_000 });
 * backoff(1); // somewhere in [0, 500)
 */
export type Backoff = (attempt: number, previous?: number, interval?: number) => number;

/** Options shared by the exponential strategies. */
export interface BackoffOptions {
  /** Ceiling of the first retry's wait, in ms. */
  base: number;
  /** Largest ceiling any retry may reach, in ms. Must be `>= base`. */
  cap: number;
  /**
   * Source of randomness in `[0, 1)`; inject a fixed function for
   * deterministic tests.
   * @default Math.random
   */
  random?: () => number;
}
