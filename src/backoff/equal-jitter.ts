import { ceiling, resolveBackoff } from './ceiling.js';
import type { Backoff, BackoffOptions } from './types.js';

/** "Equal jitter": half of `ceiling(n)` fixed, the other half random. */
export function equalJitter(options: BackoffOptions): Backoff {
  const resolved = resolveBackoff(options);
  return (attempt) => {
    const half = ceiling(resolved, attempt) / 2;
    return half + resolved.random() * half;
  };
}
