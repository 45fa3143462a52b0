import type { Accessor } from 'solid-js';
import { type PollOptions } from '../index.js';
import { createFetchState, createOperationState, createPollState, type FetchStateOptions, type FetchView, type OperationView, type PollView } from '../observe/index.js';
import type { PollOperationInit } from '../operation/index.js';
import { createView, type UrlSource } from './view.js';

type Source<TOptions> = TOptions | Accessor<TOptions | undefined>;
const reader =
  <TOptions>(options: Source<TOptions> | undefined) =>
  (): TOptions | undefined =>
    typeof options === 'function' ? (options as Accessor<TOptions | undefined>)() : options;

/**
 * Polls `url` (a value or an accessor) with `poll` while its owner lives.
 * Returns a `PollView` whose fields are getters over signals: `status`
 * narrows `data` and `error`; `attempt` of `limit`, `nextAttemptAt`,
 * `paused`, `paced` (the wait is the server's, not a failure's),
 * `secondsLeft`, and `retry`, `retryNow`, `stop`. Do not
 * destructure it (like props, reading a field is what tracks).
 *
 * `options` (a value or an accessor, read untracked) is read when polling
 * starts and for each callback. A new url stops the old poll and starts
 * afresh; disposing the owner stops everything. On the server it stays `idle`.
 */
export function createPoll<TData = unknown>(url: UrlSource, options?: Source<PollOptions<TData>>): PollView<TData> {
  const read = reader(options);
  return createView(url, (key) => createPollState<TData>(key, read), () => read()?.env);
}

/**
 * Fetches `url` once with `fetchWithRetry` and parses the body while its
 * owner lives: a `FetchView` of getters (`status` or `loading` narrows
 * `data` and `error`; `paced` tells the server's wait from a failure's).
 * A new url aborts the old request, whose answer is never shown. On the
 * server it shows `loading` and sends nothing.
 */
export function createFetchWithRetry<TData = unknown>(url: UrlSource, options?: Source<FetchStateOptions<TData>>): FetchView<TData> {
  const read = reader(options);
  return createView(url, (key) => createFetchState<TData>(key, read), () => read()?.env);
}

/**
 * Runs a long-running operation with `pollOperation` while its owner lives (the
 * start request, its 202's wait, the monitor polled, the result fetched):
 * an `OperationView` of reactive getters, `progress` the monitor's latest
 * body, `data` the result once `status` is `done`. A `null` url starts
 * nothing. Starting sends the start request: give `operation.resume` a
 * checkpoint (and `idempotencyKey: true` to a POST) so that a reload
 * continues the same operation. On the server it stays `idle`.
 */
export function createPollOperation<TResult = unknown, TStatus = unknown>(url: UrlSource, options?: Source<PollOperationInit<TStatus>>): OperationView<TResult, TStatus> {
  const read = reader(options);
  return createView(url, (key) => createOperationState<TResult, TStatus>(key, read), () => read()?.operation?.env);
}
