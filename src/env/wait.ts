import type { Clock } from './clock.js';
import { settle } from './settle.js';
import { startTimer } from './timer.js';

/** Something that may end a wait early: a page becoming visible, the network coming back. */
export interface Wake<TReason extends string = string> {
  /** What a wait this ends was woken by, as the `wake` event names it (`visible`, `online`, `focus`, `now`). */
  reason: TReason;
  /** Calls `listener` whenever the source may have changed; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** Checked on each notification: true ends the wait. */
  ready(): boolean;
}

/**
 * Waits `ms` in `clock`'s time (`Infinity`: until woken), or until one of
 * `wakes` is ready. Resolves with the reason that woke it (undefined when
 * the time ran out), rejects with `signal.reason` on abort. Subscribes only
 * for the length of the wait and leaves no timer or listener behind.
 */
export function wait<TReason extends string = never>(
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
  ms: number,
  signal?: AbortSignal,
  wakes: ReadonlyArray<Wake<TReason>> = [],
): Promise<TReason | undefined> {
  // The timer, none for a wait without end: resolves with undefined (startTimer calls back with no argument).
  const arm = (resolve: (value: undefined) => void): (() => void) | undefined => (ms < Infinity ? startTimer(clock, ms, resolve as () => void) : undefined);
  // Nothing to end it early: the timer alone, without settle's closures (a waiting fleet keeps every one it makes).
  if (!signal && !wakes.length) return new Promise(arm);
  return settle<TReason | undefined>(signal, (resolve) => {
    const stops = wakes.map((wake) => wake.subscribe(() => wake.ready() && resolve(wake.reason)));
    const stopTimer = arm(resolve);
    return () => {
      for (const stop of stops) stop();
      stopTimer?.();
    };
  });
}
