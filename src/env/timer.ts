import type { Environment } from './environment.js';

/** setTimeout's largest delay (about 24.8 days); longer waits are chained so they never fire early. */
export const MAX_TIMER = 2 ** 31 - 1;

/**
 * Calls `callback` after `ms` in `env`'s time, chaining timers past
 * setTimeout's 24.8-day limit. Returns a function that cancels it.
 */
export function startTimer(env: Environment, ms: number, callback: () => void): () => void {
  let handle: unknown;
  let remaining = Math.max(0, ms);
  const arm = (): void => {
    const step = Math.min(remaining, MAX_TIMER);
    remaining -= step;
    handle = env.setTimeout(() => (remaining > 0 ? arm() : callback()), step);
  };
  arm();
  return () => env.clearTimeout(handle);
}
