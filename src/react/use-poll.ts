import { useCallback } from 'react';
import { poll, type PollOptions } from '../index.js';
import { applyPollEvent, IDLE, type PollState } from './poll-state.js';
import { useKeyedState } from './use-keyed-state.js';
import { useLatest } from './use-latest.js';
import { useRun } from './use-run.js';

/** What {@link usePoll} returns: the state, and two controls. */
export interface UsePollResult<T> extends PollState<T> {
  /** Starts polling again from attempt 0, keeping `data`: after an error, a cancel, or at any time. */
  retry(): void;
  /** Stops polling (the request in flight and the wait); `status` becomes `'idle'`, `data` is kept. */
  cancel(): void;
}

/**
 * Polls `url` with {@link poll} while the component is mounted and exposes
 * what the poller is doing: `status`, the last `data`, the `error` it stopped
 * on, consecutive failures (`attempt`) and when it tries next
 * (`nextAttemptAt`). `null` polls nothing.
 *
 * A thin adapter: every decision (backoff, Retry-After, 304s, hidden tabs,
 * giving up) is `poll`'s. The callbacks `isDone`, `onUpdate`, `onEvent` and
 * `parse` are read from the latest render, so inline lambdas never restart
 * polling; the other options are read when polling starts (a new `url`, or
 * `retry()`). A new `url` aborts the old poller and starts afresh (`data`
 * resets); unmounting aborts it and nothing updates afterwards; under
 * `<StrictMode>` a mount sends one request, not two. On the server it
 * renders `status: 'idle'` and touches neither `window` nor `document`.
 *
 * @example
 * const { status, data, attempt, retry } = usePoll<Job>(`/api/jobs/${id}`, {
 *   isDone: (job) => job.status === 'done' || job.status === 'failed',
 * });
 */
export function usePoll<T = unknown>(url: string | URL | null, options?: PollOptions<T>): UsePollResult<T> {
  const key = url === null ? null : String(url);
  const keyRef = useLatest(key);
  const optionsRef = useLatest(options);
  const state = useKeyedState<PollState<T>>(key, () => IDLE);

  const { restart, cancel: abort } = useRun(key, (signal, runKey) => {
    const update = state.updaterFor(signal, runKey);
    const latest = (): PollOptions<T> => optionsRef.current ?? {};
    const given = latest();
    // A caller's own signal stops polling the way cancel() does.
    const onCallerAbort = (): void => cancel();
    given.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (given.signal?.aborted) return cancel();

    update((view) => ({ ...view, status: 'polling', error: undefined, attempt: 0, nextAttemptAt: undefined }));
    const givenParse = given.parse;
    poll<T>(runKey, {
      ...given,
      signal,
      isDone: (data) => latest().isDone?.(data) ?? false,
      onUpdate: (data) => {
        update((view) => ({ ...view, data }));
        latest().onUpdate?.(data);
      },
      onEvent: (event) => {
        update((view) => applyPollEvent(view, event));
        latest().onEvent?.(event);
      },
      ...(givenParse ? { parse: (response: Response) => (latest().parse ?? givenParse)(response) } : {}),
    })
      .then(
        (data) => update((view) => ({ ...view, status: 'done', data, attempt: 0, nextAttemptAt: undefined })),
        (error: unknown) => update((view) => ({ ...view, status: 'error', error, nextAttemptAt: undefined })),
      )
      .finally(() => given.signal?.removeEventListener('abort', onCallerAbort));
  });

  const { change } = state;
  const cancel = useCallback(() => {
    abort();
    change(keyRef.current, (view) => (view.status === 'polling' ? { ...view, status: 'idle', attempt: 0, nextAttemptAt: undefined } : view));
  }, [abort, change, keyRef]);

  return { ...state.view, retry: restart, cancel };
}
