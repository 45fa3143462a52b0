import { type PollOptions } from '../index.js';
import { urlKey } from '../kit/index.js';
import { createFetchState, createOperationState, createPollState, type FetchStateOptions, type FetchView, type OperationView, type PollView } from '../observe/index.js';
import type { PollOperationInit } from '../operation/index.js';
import { useKeyed } from './use-keyed.js';
import { useLatest } from './use-latest.js';
import { useView } from './use-view.js';

/**
 * Polls `url` with `poll` while the component is mounted: the snapshot of
 * `createPollState` (`status` narrows `data` and `error`; `attempt` of
 * `limit`, `nextAttemptAt`, `paused`, and `paced`: the wait is the
 * server's, not a failure's), `secondsLeft` for "next try in 3 s", and
 * `retry`, `retryNow`, `stop`. `null` polls nothing.
 *
 * `isDone`, `onUpdate`, `onEvent` and `parse` are read from the latest
 * render, so inline lambdas never restart polling; the other options when
 * polling starts (a new `url`, or `retry()`). A new `url` aborts the old
 * poll and starts afresh (`data` resets); unmounting stops everything;
 * under `<StrictMode>` a mount sends one request. On the server it renders
 * `status: 'idle'` and touches neither `window` nor `document`.
 *
 * @example
 * const job = usePoll<Job>(`/api/jobs/${id}`, { isDone: (j) => j.status !== 'running' });
 * if (job.status === 'done') return <p>{job.data.status}</p>;
 * if (job.secondsLeft !== undefined) return <p>{job.paced ? 'Busy' : `Attempt ${job.attempt} of ${job.limit} failed`}: next try in {job.secondsLeft} s</p>;
 */
export function usePoll<TData = unknown>(url: string | URL | null, options?: PollOptions<TData>): PollView<TData> {
  const key = urlKey(url);
  const latest = useLatest(options);
  const state = useKeyed(key, () => createPollState<TData>(key, () => latest.current));
  return useView(state, options?.env);
}

/**
 * Fetches `url` once with `fetchWithRetry` (network errors and 408, 429,
 * 5xx retried; other statuses fail at once with an `HttpError`) and parses
 * the body: the snapshot of `createFetchState` (`status` or `loading`
 * narrows `data` and `error`; `attempt` of `limit`, `nextAttemptAt`, and
 * `paced`: the wait is the server's Retry-After, not a failure's backoff),
 * `secondsLeft`, and `retry`, `retryNow` (skips the wait, a Retry-After's
 * included), `stop`. `null` fetches nothing.
 *
 * `parse` and `onRetry` are read from the latest render, the rest when a
 * fetch starts. A new `url` aborts the old fetch, whose answer is never
 * shown; unmounting stops it; under `<StrictMode>` a mount sends one
 * request. On the server it renders `loading: true` and sends nothing.
 *
 * @example
 * const report = useFetchWithRetry<Report>('/api/report');
 * if (report.status === 'error') return <button onClick={report.retry}>Retry</button>;
 */
export function useFetchWithRetry<TData = unknown>(url: string | URL | null, options?: FetchStateOptions<TData>): FetchView<TData> {
  const key = urlKey(url);
  const latest = useLatest(options);
  const state = useKeyed(key, () => createFetchState<TData>(key, () => latest.current));
  return useView(state, options?.env);
}

/**
 * Runs a long-running operation with `pollOperation` while the component is
 * mounted: the start request (`init`: method, body, headers), the wait its
 * 202 asks for, the monitor polled, the result fetched. The snapshot of
 * `createOperationState`: `progress` is the monitor's latest body, `data`
 * the result once `status` is `done`; `attempt` of `limit`,
 * `nextAttemptAt`, `paused`, `paced`, `secondsLeft`, and `retry`,
 * `retryNow`, `stop`. `null` starts nothing: pass the url once the user
 * asked for the job.
 *
 * Mounting sends the start: give `operation.resume` a checkpoint (and
 * `operation.idempotencyKey: true` to a POST) so that a reload or a
 * remount continues the same operation at its monitor instead of starting
 * a second one. `operation.onUpdate` and `onEvent` are read from the latest
 * render; the rest when the operation starts. Under `<StrictMode>` a mount
 * sends one start. On the server it renders `status: 'idle'`.
 *
 * @example
 * const report = usePollOperation<Report, Progress>(asked ? '/api/reports' : null, {
 *   method: 'POST',
 *   body: JSON.stringify({ month }),
 *   operation: { idempotencyKey: true, resume: checkpoint({ store: webStorage(localStorage), key: `report:${month}` }) },
 * });
 * if (report.status === 'done') return <Report rows={report.data.rows} />;
 * return <progress value={report.progress?.percent ?? 0} max={100} />;
 */
export function usePollOperation<TResult = unknown, TStatus = unknown>(url: string | URL | null, options?: PollOperationInit<TStatus>): OperationView<TResult, TStatus> {
  const key = urlKey(url);
  const latest = useLatest(options);
  const state = useKeyed(key, () => createOperationState<TResult, TStatus>(key, () => latest.current));
  return useView(state, options?.operation?.env);
}
