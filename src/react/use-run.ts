import { useCallback, useEffect, useRef } from 'react';
import { useLatest } from './use-latest.js';

/** Controls of a {@link useRun}. */
export interface RunControls {
  /** Aborts the current run, if any, and starts a fresh one for the same key at once. */
  restart(): void;
  /** Aborts the current run, or the start that is about to happen. */
  cancel(): void;
}

const abortError = (message: string): DOMException => new DOMException(message, 'AbortError');

/**
 * Owns one asynchronous run at a time: `start(signal, key)` is called after
 * mount, again whenever `key` changes, and on `restart()`; the previous run's
 * signal is aborted first, and the last one's on unmount. A `null` key runs
 * nothing.
 *
 * The start after a mount or key change is deferred by a microtask that the
 * effect's cleanup cancels: `<StrictMode>` mounts, unmounts and remounts a
 * component synchronously, so its throw-away first mount is aborted before
 * it sends anything, and a mount costs exactly one run.
 */
export function useRun(key: string | null, start: (signal: AbortSignal, key: string) => void): RunControls {
  const startRef = useLatest(start);
  const keyRef = useRef<string | null>(null);
  const current = useRef<AbortController | null>(null);

  const launch = useCallback(
    (runKey: string, defer: boolean) => {
      current.current?.abort(abortError('Restarted'));
      const controller = new AbortController();
      current.current = controller;
      const begin = (): void => {
        if (!controller.signal.aborted) startRef.current(controller.signal, runKey);
      };
      if (defer) queueMicrotask(begin);
      else begin();
    },
    [startRef],
  );

  useEffect(() => {
    keyRef.current = key;
    if (key !== null) launch(key, true);
    return () => {
      current.current?.abort(abortError('The component unmounted or its url changed'));
      current.current = null;
      keyRef.current = null;
    };
  }, [key, launch]);

  const restart = useCallback(() => {
    if (keyRef.current !== null) launch(keyRef.current, false);
  }, [launch]);
  const cancel = useCallback(() => current.current?.abort(abortError('Cancelled')), []);
  return { restart, cancel };
}
