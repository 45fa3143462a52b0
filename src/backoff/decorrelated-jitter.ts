import { resolveBackoff } from './ceiling.js';
import type { Backoff, BackoffOptions } from './types.js';

/**
 * "Decorrelated jitter": `min(cap, base + random() * (previous * 3 - base))`,
 * where `previous` starts at `base` and is reset when `attempt` is 1.
 * Stateful: create one per retry loop.
 */
export function decorrelatedJitter(options: BackoffOptions): Backoff {
  const resolved = resolveBackoff(options);
  const { base, cap, random } = resolved;
  let previous = base;
  return (attempt) => {
    if (attempt <= 1) previous = base;
    previous = Math.min(cap, base + random() * (previous * 3 - base));
    return previous;
  };
}
