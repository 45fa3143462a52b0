import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { type Clock } from '../index.js';
import { createCountdown, type RunState, type ViewControls } from '../observe/index.js';

/**
 * Subscribes to `state` and its countdown, starts it after mount and stops
 * it on unmount (or when `state` is replaced: a new url). The state defers
 * its first request by a microtask, so `<StrictMode>`'s mount, unmount and
 * remount sends one. On the server, and in the first render, it shows the
 * state as created: nothing starts before an effect runs.
 */
export function useView<TSnapshot extends { readonly nextAttemptAt: number | undefined }>(
  state: RunState<TSnapshot>,
  env: Partial<Clock> | undefined,
): TSnapshot & ViewControls {
  const snapshot = useSyncExternalStore(state.subscribe, state.getSnapshot, state.getSnapshot);
  // Counted with the clock of the render that made the state.
  const countdown = useMemo(() => createCountdown(state, env), [state]);
  const secondsLeft = useSyncExternalStore(countdown.subscribe, countdown.getSnapshot, countdown.getSnapshot);
  useEffect(() => {
    state.start();
    return state.stop;
  }, [state]);
  return { ...snapshot, secondsLeft, retry: state.retry, retryNow: state.retryNow, stop: state.stop };
}
