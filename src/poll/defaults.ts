import type { Backoff } from '../backoff/types.js';
import type { Clock } from '../env/clock.js';

/** Every default of `poll`, in one frozen place. */
export const POLL_DEFAULTS = Object.freeze({
  // pacing
  interval: 2000,
  retries: 8,
  maxRetryAfter: 300_000,
  // behaviour
  pauseWhenHidden: true,
  pauseWhenOffline: true,
  conditional: true,
  // cooperation
  cooldown: true,
});

/**
 * `poll`'s default backoff, relative to its interval: the n-th failure in a
 * row waits `1.5` to `2.25` times the interval (at least a second),
 * doubling with each failure, 30 s at most; the backoff is that wait less
 * the interval the decision adds. Measured with the simulator and the peers'
 * bench: into a 5 s outage it sends fewer requests than a client retrying
 * every second and sees the recovery within 3 s (p95); over a 60 s outage it
 * sends fewer than full jitter from 2 s. The jitter is a third of the range,
 * so a fleet does not return in lockstep. Draws from `env.random`, so
 * virtual time stays deterministic.
 */
export const pollBackoff =
  (env: Pick<Clock, 'random'>): Backoff =>
  (attempt, _previous, interval = 0) =>
    Math.max(0, Math.min(30_000, Math.max(interval, 1000) * (1.5 + 0.75 * env.random()) * 2 ** (Math.max(1, attempt) - 1)) - interval);
