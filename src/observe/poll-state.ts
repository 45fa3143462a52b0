import { POLL_DEFAULTS } from '../poll/defaults.js';
import { poll } from '../poll/poll.js';
import type { PollOptions } from '../poll/poll-options.js';
import { createLoopState, withFeature } from './loop-state.js';
import { limitOf, reader, type OptionsSource } from './one-run.js';
import type { PollSnapshot } from './poll-snapshot.js';
import type { PollState } from './run-state.js';
import { urlKey } from './url-key.js';

/**
 * A poll of `url` as a UI sees it: {@link poll} with a snapshot to subscribe
 * to (`getSnapshot()` is the same object until something changes, as
 * `useSyncExternalStore` wants), and the buttons: `start`, `stop`, `retry`
 * and `retryNow`. Every decision (backoff, Retry-After, 304s, the pauses,
 * giving up) is `poll`'s; this only maps its life to UI state. Nothing is
 * sent, and neither `window` nor `document` touched, before `start()`.
 *
 * `options` may be a function: it is read at each start for the options,
 * and again at each call of `isDone`, `onUpdate`, `onEvent` and `parse`, so
 * callbacks are always the latest (React's last render, a Vue getter). Its
 * `signal` stops polling as `stop()` does. A `null` url polls nothing.
 *
 * @example
 * const job = createPollState<Job>('/api/jobs/42', { isDone: (j) => j.status !== 'running' });
 * job.subscribe(() => render(job.getSnapshot()));
 * job.start();
 */
export function createPollState<TData = unknown>(url: string | URL | null, options?: OptionsSource<PollOptions<TData>>): PollState<TData> {
  const read = reader(options);
  return createLoopState<PollOptions<TData>, TData, PollSnapshot<TData>>(urlKey(url), read, {
    field: 'data',
    limit: (given) => limitOf(given.retries, POLL_DEFAULTS.retries),
    own: (given) => given,
    run: (key, given, { signal, feature, onUpdate, onEvent }) => {
      const { parse } = given;
      return poll<TData>(key, {
        ...given,
        signal,
        use: withFeature(given.use, feature),
        isDone: (body) => read().isDone?.(body) ?? false,
        onUpdate,
        onEvent,
        ...(parse ? { parse: (response: Response) => (read().parse ?? parse)(response) } : {}),
      });
    },
  });
}
