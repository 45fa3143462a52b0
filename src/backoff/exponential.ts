import { ceiling, resolveBackoff } from './ceiling.js';
import type { Backoff, BackoffOptions } from './types.js';

/** Options of {@link exponential}. */
export interface ExponentialOptions extends BackoffOptions {
  /**
   * Fraction of the ceiling added at random: the wait is
   * `ceiling(n) * (1 + jitter * random())`.
   * @default 0
   */
  jitter?: number;
}

/** Plain exponential backoff with an optional proportional jitter above the ceiling. */
export function exponential(options: ExponentialOptions): Backoff {
  const resolved = resolveBackoff(options, ['jitter']);
  const jitter = options.jitter ?? 0;
  if ((typeof __DEV__ === 'undefined' || __DEV__) && (typeof jitter !== 'number' || !(jitter >= 0) || !Number.isFinite(jitter))) {
    throw new TypeError('Expected `jitter` to be a finite number >= 0');
  }
  return (attempt) => ceiling(resolved, attempt) * (1 + jitter * resolved.random());
}
