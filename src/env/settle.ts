import { onAbort } from './on-abort.js';

/**
 * The one abortable wait every other wait is built from (sleeps, pauses,
 * a request raced against its signal): runs `start`, which arranges for
 * `resolve` or `reject` to be called and returns a cleanup; settles with
 * the first of those, or rejects with `signal.reason` when the signal
 * aborts first. The cleanup runs and the abort subscription is dropped
 * whichever way it ends, so nothing stays attached.
 */
export function settle<T>(
  signal: AbortSignal | undefined,
  start: (resolve: (value: T) => void, reject: (error: unknown) => void) => (() => void) | void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let done = false;
    // Assigned once `start` returns; a settle from inside `start` may come first, so not a const.
    let cleanup: (() => void) | void = undefined;
    let unsubscribe: (() => void) | undefined;
    // One scope for all three: a wait lives as long as it waits, so every closure it keeps counts.
    const finish = (): boolean => {
      if (done) return false;
      done = true;
      unsubscribe?.();
      cleanup?.();
      return true;
    };
    const ok = (value: T): void => {
      if (finish()) resolve(value);
    };
    const fail = (error: unknown): void => {
      if (finish()) reject(error);
    };
    if (signal) unsubscribe = onAbort(signal, () => fail(signal.reason));
    cleanup = start(ok, fail);
    // `start` may have settled at once, before its cleanup was known.
    if (done) cleanup?.();
  });
}

/** Settles with `promise`, or rejects with `signal.reason` the moment it aborts: a fetch that ignores its signal cannot hold pollite. */
export const abortable = <T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
  if (!signal) return promise;
  if (signal.aborted) promise.catch(() => undefined);
  return settle(signal, (resolve, reject) => void promise.then(resolve, reject));
};
