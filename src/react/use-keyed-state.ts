import { useCallback, useState } from 'react';
import { useLatest } from './use-latest.js';

/** State that belongs to one key (a hook's url), and the ways to change it. */
export interface KeyedState<V> {
  /** The view for the key of this render: its own, or `initial(key)` while the state still holds another key's. */
  view: V;
  /**
   * Changes the view of `key` (starting from `initial(key)` when the state
   * holds another key's view). Returning the same view changes nothing, so
   * React skips the render.
   */
  change(key: string | null, next: (view: V) => V): void;
  /** A {@link KeyedState.change} for one run of `key` that does nothing once `signal` has aborted (a stale run). */
  updaterFor(signal: AbortSignal, key: string): (next: (view: V) => V) => void;
}

/**
 * The state of a hook that runs per key (usePoll, useFetchWithRetry): a
 * run's updates land on its own key only, and a new key reads as
 * `initial(key)` from the first render on, never as the old key's view.
 * `initial` is read from the latest render.
 */
export function useKeyedState<V>(key: string | null, initial: (key: string | null) => V): KeyedState<V> {
  const initialRef = useLatest(initial);
  const [state, setState] = useState<{ key: string | null; view: V }>(() => ({ key: null, view: initial(null) }));
  const change = useCallback(
    (target: string | null, next: (view: V) => V): void =>
      setState((s) => {
        const before = s.key === target ? s.view : initialRef.current(target);
        const view = next(before);
        return view === before ? s : { key: target, view };
      }),
    [initialRef],
  );
  const updaterFor = useCallback(
    (signal: AbortSignal, runKey: string) =>
      (next: (view: V) => V): void => {
        if (!signal.aborted) change(runKey, next);
      },
    [change],
  );
  return { view: state.key === key ? state.view : initial(key), change, updaterFor };
}
