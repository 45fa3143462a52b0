import { ceiling, resolveBackoff } from './ceiling.js';
import type { Backoff, BackoffOptions } from './types.js';

/**
 * "Full jitter" (AWS, 2015): a uniformly random wait in `[0, ceiling(n))`.
 * Spreads a fleet's retries over the widest window; the default for `poll`
 * and `retry`.
 */
export function fullJitter(options: BackoffOptions): Backoff {
  const resolved = resolveBackoff(options);
  return (attempt) => resolved.random() * ceiling(resolved, attempt);
}
