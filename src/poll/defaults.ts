import { expo } from '../backoff/ceiling.js';
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
 * `poll`'s default backoff: full jitter, base 2 s, cap 30 s (`fullJitter`'s
 * arithmetic without its option checks, which constants do not need).
 * Draws from `env.random`, so virtual time stays deterministic.
 */
export const pollBackoff =
  (env: Pick<Clock, 'random'>): Backoff =>
  (attempt) =>
    env.random() * expo(2000, 30_000, attempt);
