import type { Backoff } from './types.js';

/** The same wait before every retry. */
export function constant(ms: number): Backoff {
  if (typeof ms !== 'number' || !(ms >= 0) || !Number.isFinite(ms)) {
    throw new TypeError('Expected `ms` to be a finite number >= 0');
  }
  return () => ms;
}
