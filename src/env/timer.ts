import type { Clock } from './clock.js';

/** setTimeout's largest delay (about 24.8 days); longer waits are chained so they never fire early. */
export const MAX_TIMER = 2 ** 31 - 1;

/**
 * Calls `callback` after `ms` in `clock`'s time, chaining timers past
 * setTimeout's 24.8-day limit; returns a function that cancels it. The one
 * timer behind every wait and every deadline: a plain timer is held by the
 * event loop, unlike Node 20's `AbortSignal.timeout` inside
 * `AbortSignal.any`, which a garbage collection can silently cancel.
 */
export function startTimer(clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>, ms: number, callback: () => void): () => void {
  if (!(ms > MAX_TIMER)) {
    // The common case, one timer: no chain to keep.
    // Bound, not a closure: no scope kept per timer (a fleet of waits keeps every one).
    return clock.clearTimeout.bind(clock, clock.setTimeout(callback, Math.max(0, ms)));
  }
  let handle: unknown;
  let remaining = Math.max(0, ms);
  const arm = (): void => {
    const step = Math.min(remaining, MAX_TIMER);
    remaining -= step;
    handle = clock.setTimeout(() => (remaining > 0 ? arm() : callback()), step);
  };
  arm();
  return () => clock.clearTimeout(handle);
}
