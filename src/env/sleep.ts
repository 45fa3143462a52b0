import { resolveEnvironment, type Environment } from './environment.js';
import { startTimer } from './timer.js';

/**
 * Waits `ms` milliseconds in `env`'s time. Rejects with `signal.reason` as
 * soon as the signal aborts, and leaves no timer and no listener behind
 * either way.
 */
export function sleepIn(env: Environment, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = startTimer(env, ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
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
