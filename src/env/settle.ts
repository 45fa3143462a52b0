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
    // Assigned once `start` returns; `end` may run first (a settle from inside `start`), so not a const.
    let cleanup: (() => void) | void = undefined;
    const end =
      <V>(then: (value: V) => void) =>
      (value: V): void => {
        if (done) return;
        done = true;
        unsubscribe?.();
        cleanup?.();
        then(value);
      };
    const unsubscribe = signal && onAbort(signal, () => end(reject)(signal.reason));
    cleanup = start(end(resolve), end(reject));
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
