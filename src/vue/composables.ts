import { toValue, type MaybeRefOrGetter } from 'vue';
import { type PollOptions } from '../index.js';
import { createFetchState, createOperationState, createPollState, type FetchStateOptions, type FetchView, type OperationView, type PollView } from '../observe/index.js';
import type { PollOperationInit } from '../operation/index.js';
import { useView, type UrlSource } from './use-view.js';

/**
 * Polls `url` (a value, a ref or a getter) with `poll` while the component
 * is mounted. Returns a shallow-reactive `PollView`: `status` narrows `data`
 * and `error`; `attempt` of `limit`, `nextAttemptAt`, `paused`, `paced`
 * (the wait is the server's, not a failure's), `secondsLeft`, and `retry`,
 * `retryNow`, `stop`. Read it as `poll.status`
 * (or `toRefs(poll)`); destructuring loses reactivity, as with `reactive`.
 *
 * `options` (a value, a ref or a getter) is read when polling starts and
 * for each callback, so `isDone`, `onUpdate`, `onEvent` and `parse` are
 * always the latest. A new url stops the old poll and starts afresh;
 * unmounting stops everything. On the server it stays `idle`.
 */
export function usePoll<TData = unknown>(url: UrlSource, options?: MaybeRefOrGetter<PollOptions<TData> | undefined>): PollView<TData> {
  const read = (): PollOptions<TData> | undefined => toValue(options);
  return useView(url, (key) => createPollState<TData>(key, read), () => read()?.env);
}

/**
 * Fetches `url` once with `fetchWithRetry` and parses the body, while the
 * component is mounted. Returns a shallow-reactive `FetchView` (`status` or
 * `loading` narrows `data` and `error`; `attempt` of `limit`,
 * `nextAttemptAt`, `paced`, `secondsLeft`, and `retry`, `retryNow`,
 * `stop`). A new url aborts the old request, whose answer is never shown.
 * On the server it shows `loading` and sends nothing.
 */
export function useFetchWithRetry<TData = unknown>(url: UrlSource, options?: MaybeRefOrGetter<FetchStateOptions<TData> | undefined>): FetchView<TData> {
  const read = (): FetchStateOptions<TData> | undefined => toValue(options);
  return useView(url, (key) => createFetchState<TData>(key, read), () => read()?.env);
}

/**
 * Runs a long-running operation with `pollOperation` while the component is
 * mounted (the start request, its 202's wait, the monitor polled, the
 * result fetched). Returns a shallow-reactive `OperationView`: `progress`
 * is the monitor's latest body, `data` the result once `status` is `done`,
 * with `attempt`, `nextAttemptAt`, `paced`, `secondsLeft`, `retry`,
 * `retryNow`, `stop`. A `null` url starts nothing. Mounting sends the
 * start: give `operation.resume` a checkpoint (and `idempotencyKey: true`
 * to a POST) so that a reload continues the same operation. On the server
 * it stays `idle`.
 */
export function usePollOperation<TResult = unknown, TStatus = unknown>(
  url: UrlSource,
  options?: MaybeRefOrGetter<PollOperationInit<TStatus> | undefined>,
): OperationView<TResult, TStatus> {
  const read = (): PollOperationInit<TStatus> | undefined => toValue(options);
  return useView(url, (key) => createOperationState<TResult, TStatus>(key, read), () => read()?.operation?.env);
}
