import { resolveClock, type Clock } from '../env/clock.js';
import { startTimer } from '../env/timer.js';
import { createStore, type Subscribable } from './store.js';

/** Anything with a `nextAttemptAt` to count down to: a poll or a fetch state. */
export type Countable = Subscribable<{
  /** When the next attempt goes out, epoch ms; `undefined` while there is no wait to count down. */
  readonly nextAttemptAt: number | undefined;
}>;

/** Whole seconds left until `at`, rounded up: 1 during the last second, 0 once it is due. */
const secondsUntil = (at: number | undefined, now: number): number | undefined => (at === undefined ? undefined : Math.max(0, Math.ceil((at - now) / 1000)));

/**
 * Seconds until the next attempt of `state` ("next try in 3 s"), or
 * `undefined` while there is no wait. The wait rounded up to whole seconds
 * and read from the clock at each change, so it never shows more than the
 * wait (a 507 ms wait shows 1, never 2) and reaches 0 when the wait ends.
 * It ticks exactly when the number changes, with a timer only while
 * `nextAttemptAt` is set and somebody subscribes; unwatched, it holds
 * nothing. `env` is the clock to count with (the state's own `env`).
 */
export function createCountdown(state: Countable, env?: Partial<Clock>): Subscribable<number | undefined> {
  const clock = resolveClock(env);
  let stopTimer: (() => void) | undefined;
  let unsubscribe: (() => void) | undefined;
  const read = (): number | undefined => secondsUntil(state.getSnapshot().nextAttemptAt, clock.now());
  const tick = (): void => {
    stopTimer?.();
    stopTimer = undefined;
    const at = state.getSnapshot().nextAttemptAt;
    const now = clock.now();
    const seconds = secondsUntil(at, now);
    store.set(seconds);
    // The next change is when the time left drops to the next whole second.
    if (at !== undefined && seconds! > 0) stopTimer = startTimer(clock, at - now - (seconds! - 1) * 1000, tick);
  };
  const store = createStore<number | undefined>(undefined, (watching) => {
    if (watching) {
      unsubscribe = state.subscribe(tick);
      tick();
    } else {
      unsubscribe?.();
      stopTimer?.();
      unsubscribe = stopTimer = undefined;
    }
  });
  return {
    subscribe: store.subscribe,
    // Watched, the value the ticks keep; unwatched (a first render, a server render), read from the clock.
    getSnapshot: () => (unsubscribe ? store.getSnapshot() : read()),
  };
}
