import { expo, resolveBackoff } from './ceiling.js';
import type { Backoff, BackoffOptions } from './types.js';

/**
 * "Decorrelated jitter": `min(cap, base + random() * (previous * 3 - base))`,
 * where `previous` is the wait chosen for the retry before (the loop hands
 * it back), `base` for the first retry. Pure: it keeps nothing between
 * calls, so one strategy serves any number of loops. A caller that cannot
 * say what it chose last (`previous` 0 after the first retry) gets the
 * exponential ceiling of the retry before in its place.
 */
export function decorrelatedJitter(options: BackoffOptions): Backoff {
  const { base, cap, random } = resolveBackoff(options);
  return (attempt, previous = 0) => {
    const last = attempt <= 1 ? base : previous > 0 ? previous : expo(base, cap, attempt - 1);
    return Math.min(cap, base + random() * (Math.max(last, base) * 3 - base));
  };
}
