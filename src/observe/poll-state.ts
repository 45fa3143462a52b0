import { POLL_DEFAULTS } from '../poll/defaults.js';
import type { PollFeature } from '../poll/feature.js';
import { poll } from '../poll/poll.js';
import type { PollOptions } from '../poll/poll-options.js';
import { limitOf, oneRun, reader, type OptionsSource } from './one-run.js';
import { applyPollEvent, pollIdle, type PollSnapshot } from './poll-snapshot.js';
import type { PollState } from './run-state.js';
import { createStore } from './store.js';
import { tryNow } from './try-now.js';
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
  const key = urlKey(url);
  const read = reader(options);
  const store = createStore(pollIdle<TData>(undefined, limitOf(read().retries, POLL_DEFAULTS.retries)));
  const run = oneRun();
  const button = tryNow();
  const wake = { ...button.wake, every: true };
  const feature: PollFeature = { attach: () => ({ wake }) };

  const toIdle = (): void => {
    const now = store.getSnapshot();
    if (now.status === 'polling') store.set(pollIdle(now.data, now.limit));
  };
  const stop = (): void => {
    run.end();
    toIdle();
  };

  const launch = (): void => {
    const given = read();
    if (key === null || given.signal?.aborted) return stop();
    const { data } = store.getSnapshot();
    const limit = limitOf(given.retries, POLL_DEFAULTS.retries);
    store.set({ status: 'polling', data, error: undefined, attempt: 1, limit, nextAttemptAt: undefined, paused: false, paced: false });
    run.begin((signal, live) => {
      // The caller's signal ends polling as stop() does; added only once a run really starts, removed when it ends.
      const onCallerAbort = (): void => void (live() && stop());
      if (given.signal?.aborted) return onCallerAbort();
      given.signal?.addEventListener('abort', onCallerAbort, { once: true });
      let sent = 0;
      const settle = (next: (now: PollSnapshot<TData>) => PollSnapshot<TData>): void => {
        if (!live()) return;
        run.end();
        store.set(next(store.getSnapshot()));
      };
      const { parse } = given;
      poll<TData>(key, {
        ...given,
        signal,
        use: [...(given.use ?? []), feature],
        isDone: (body) => read().isDone?.(body) ?? false,
        onUpdate: (body) => {
          if (!live()) return;
          const now = store.getSnapshot();
          if (now.status === 'polling') store.set({ ...now, data: body });
          return read().onUpdate?.(body);
        },
        onEvent: (event) => {
          if (!live()) return;
          if (event.type === 'request') sent = event.attempt;
          store.set(applyPollEvent(store.getSnapshot(), event));
          read().onEvent?.(event);
        },
        ...(parse ? { parse: (response: Response) => (read().parse ?? parse)(response) } : {}),
      })
        .then(
          (body) => settle(() => ({ status: 'done', data: body, error: undefined, attempt: sent, limit, nextAttemptAt: undefined, paused: false, paced: false })),
          (error: unknown) => settle((now) => ({ status: 'error', data: now.data, error, attempt: sent, limit, nextAttemptAt: undefined, paused: false, paced: false })),
        )
        .finally(() => given.signal?.removeEventListener('abort', onCallerAbort));
    });
  };

  return {
    subscribe: store.subscribe,
    getSnapshot: store.getSnapshot,
    start: () => void (run.running() || launch()),
    stop,
    retry: launch,
    retryNow: button.press,
  };
}
