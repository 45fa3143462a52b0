import type { PollOperationInit } from '../operation/operation-options.js';
import { pollOperation } from '../operation/poll-operation.js';
import { POLL_DEFAULTS } from '../poll/defaults.js';
import { createLoopState, withFeature } from './loop-state.js';
import { limitOf, reader, type OptionsSource } from './one-run.js';
import type { PollSnapshot } from './poll-snapshot.js';
import type { RunState, ViewControls } from './run-state.js';
import { urlKey } from './url-key.js';

/**
 * What a UI shows of a long-running operation: a {@link PollSnapshot} of
 * its polls whose `data` is the operation's result (set when `status` is
 * `done`), plus `progress`, the monitor's latest body ("Running, 40 %"):
 * kept across a stop, an error and a retry.
 */
export type OperationSnapshot<TResult, TStatus> = PollSnapshot<TResult> & {
  /** The monitor's latest 2xx body (parsed by `operation.parse`), `undefined` before the first. */
  readonly progress: TStatus | undefined;
};

/** An operation as a UI drives it: see {@link createOperationState}. */
export type OperationRunState<TResult, TStatus> = RunState<OperationSnapshot<TResult, TStatus>>;

/** What `usePollOperation` (React, Vue) and `createPollOperation` (Svelte, Solid) return: the same shape in every framework. */
export type OperationView<TResult, TStatus> = OperationSnapshot<TResult, TStatus> & ViewControls;

/**
 * A long-running operation as a UI sees it: {@link pollOperation} (the
 * start request, its 202's wait honoured, the monitor polled, the result
 * fetched) with a snapshot to subscribe to and the buttons, as
 * {@link createPollState} has them. `progress` is the monitor's latest
 * body; `data` the result once `status` is `done` (none while a new run is
 * under way). `retry()` after a `stop()` continues the same operation when
 * `operation.resume` has a checkpoint (give a write `idempotencyKey: true`
 * too) rather than sending a second start; after an error the operation is
 * over (its checkpoint deleted) and `retry()` starts a new one. Nothing is
 * sent before `start()`.
 *
 * `options` may be a function, read at each start and for each call of
 * `operation.onUpdate` and `operation.onEvent` (the latest render's). A
 * `null` url starts nothing.
 *
 * @example
 * const report = createOperationState<Report, Progress>('/api/reports', {
 *   method: 'POST',
 *   body: JSON.stringify({ month }),
 *   operation: { idempotencyKey: true, resume: checkpoint({ store: webStorage(localStorage), key: `report:${month}` }) },
 * });
 * report.subscribe(() => render(report.getSnapshot()));
 * report.start();
 */
export function createOperationState<TResult = unknown, TStatus = unknown>(
  url: string | URL | null,
  options?: OptionsSource<PollOperationInit<TStatus>>,
): OperationRunState<TResult, TStatus> {
  const read = reader(options);
  return createLoopState<PollOperationInit<TStatus>, TResult, OperationSnapshot<TResult, TStatus>>(urlKey(url), read, {
    field: 'progress',
    limit: (given) => limitOf(given.operation?.retries, POLL_DEFAULTS.retries),
    own: (given) => ({ ...given.operation, signal: given.signal }),
    run: (key, given, { signal, feature, onUpdate, onEvent }) => {
      const operation = given.operation ?? {};
      return pollOperation<TResult, TStatus>(key, {
        ...given,
        signal,
        operation: { ...operation, use: withFeature(operation.use, feature), onUpdate, onEvent },
      });
    },
  });
}
