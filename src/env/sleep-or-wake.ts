import type { Environment } from './environment.js';
import { startTimer } from './timer.js';

/** Something in the environment that may end a wait early: a page becoming visible, the network coming back. */
export interface WakeSource<TReason extends string = string> {
  reason: TReason;
  /** Calls `listener` whenever the source may have changed; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** Checked on each notification: true ends the wait. */
  ready(): boolean;
}

/**
 * Waits `ms` in `env`'s time, or until one of `wakes` becomes ready. Resolves
 * with the reason that woke it (undefined when the time ran out), rejects with
 * `signal.reason` on abort. Subscribes only for the length of the wait and
 * leaves no timer or listener behind.
 */
export function sleepOrWake<TReason extends string>(
  env: Environment,
  ms: number,
  signal: AbortSignal | undefined,
  wakes: ReadonlyArray<WakeSource<TReason>>,
): Promise<TReason | undefined> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const unsubscribers: Array<() => void> = [];
    const settle = (): void => {
      cancel();
      signal?.removeEventListener('abort', onAbort);
      for (const unsubscribe of unsubscribers) unsubscribe();
    };
    const onAbort = (): void => {
      settle();
      reject(signal?.reason);
    };
    const cancel = startTimer(env, ms, () => {
      settle();
      resolve(undefined);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    for (const wake of wakes) {
      unsubscribers.push(
        wake.subscribe(() => {
          if (!wake.ready()) return;
          settle();
          resolve(wake.reason);
        }),
      );
    }
  });
}
