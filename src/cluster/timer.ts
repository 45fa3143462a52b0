import type { Clock } from '../index.js';

/** setTimeout's largest delay (about 24.8 days); longer waits are chained so they never fire early. */
const MAX_TIMER = 2 ** 31 - 1;

/**
 * Calls `callback` after `ms` in `clock`'s time, chaining timers past
 * setTimeout's limit; returns a function that cancels it. (The core's own
 * `startTimer` is not public; this is its twin.)
 */
export function later(clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>, ms: number, callback: () => void): () => void {
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

/** The real timers, bound late (so fake timers and spies work): what the lease and the deadlines run on. */
export const realTimers: Pick<Clock, 'setTimeout' | 'clearTimeout'> = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
