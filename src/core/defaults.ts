import { fullJitter } from '../backoff/full-jitter.js';
import type { Backoff } from '../backoff/types.js';
import type { Environment } from '../env/environment.js';

/** Every default of `poll`, in one frozen place. */
export const POLL_DEFAULTS = Object.freeze({
  // pacing
  interval: 2000,
  maxAttempts: 8,
  maxRetryAfter: 300_000,
  // behaviour
  pauseWhenHidden: true,
  pauseWhenOffline: true,
  pauseWhenBlurred: false,
  conditional: true,
  // cooperation
  cooldown: true,
  share: false,
});

/** `poll`'s default backoff; a factory, because strategies may hold state. Draws from `env.random`, so virtual time stays deterministic. */
export const pollBackoff = (env: Pick<Environment, 'random'>): Backoff =>
  fullJitter({ base: 2000, cap: 30_000, random: () => env.random() });
