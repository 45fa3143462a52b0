import { resolveEnvironment, type Environment } from './environment.js';
import { sleepOrWake } from './sleep-or-wake.js';

/**
 * Waits `ms` milliseconds in `env`'s time. Rejects with `signal.reason` as
 * soon as the signal aborts, and leaves no timer and no listener behind
 * either way: a {@link sleepOrWake} with nothing to wake it.
 */
export function sleepIn(env: Environment, ms: number, signal?: AbortSignal): Promise<void> {
  return sleepOrWake(env, ms, signal, []).then(() => undefined);
}

/**
 * Resolves after `ms` milliseconds, or rejects with `signal.reason` when
 * `signal` aborts first. Leaves no timer or listener behind.
 *
 * @example
 * await sleep(1000, controller.signal);
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (typeof ms !== 'number' || Number.isNaN(ms)) {
    return Promise.reject(new TypeError('Expected `ms` to be a number'));
  }
  return sleepIn(resolveEnvironment(), ms, signal);
}
