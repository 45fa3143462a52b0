import { realClock } from './clock.js';
import { wait } from './wait.js';

/**
 * Resolves after `ms` milliseconds, or rejects with `signal.reason` when
 * `signal` aborts first. Leaves no timer or listener behind.
 *
 * @example
 * await sleep(1000, controller.signal);
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (typeof ms !== 'number' || Number.isNaN(ms)) return Promise.reject(new TypeError('Expected `ms` to be a number'));
  return wait(realClock, ms, signal).then(() => undefined);
}
