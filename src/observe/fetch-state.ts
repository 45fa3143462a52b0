import { exponential } from '../backoff/exponential.js';
import type { Backoff } from '../backoff/types.js';
import { resolveClock } from '../env/clock.js';
import { HttpError } from '../errors/http-error.js';
import { ParseError } from '../errors/parse-error.js';
import { parseJson } from '../http/body.js';
import { fetchWithRetry } from '../retry/fetch-with-retry.js';
import { checkNames } from '../options/check.js';
import { REQUEST_INIT_NAMES } from '../options/request-init-names.js';
import { checkFetchRetryValues, fetchRetryOptionNames, RETRY_DEFAULTS } from '../retry/normalize-retry-options.js';
import type { FetchRetryOptions } from '../retry/retry-options.js';
import { fetchDone, fetchFailed, fetchIdle, fetchLoading, type FetchSnapshot } from './fetch-snapshot.js';
import { limitOf, oneRun, reader, type OptionsSource } from './one-run.js';
import type { FetchState } from './run-state.js';
import { createStore } from './store.js';
import { tryNow } from './try-now.js';
import { urlKey } from './url-key.js';

/** Options of {@link createFetchState}: `fetchWithRetry`'s retry options, plus the request and its parser. */
export interface FetchStateOptions<TData> extends Omit<FetchRetryOptions, 'signal' | 'wake'> {
  /**
   * Failures tried again: `limit` is `retries + 1`.
   * @default 3
   */
  retries?: number;
  /**
   * Wait before the n-th retry, ms (a valid Retry-After overrides it).
   * @default exponential({ base: 500, cap: 10000, jitter: 0.25 }): 500-625 ms, 1-1.25 s, 2-2.5 s... (a countdown a person can trust)
   */
  backoff?: Backoff;
  /** Passed to `fetch` (method, headers, body...). Its `signal` is ignored: use `stop()`. @default {} */
  init?: RequestInit;
  /**
   * Reads a 2xx body; read when the answer arrives (the latest, when the options are a function). A throw becomes a `ParseError`.
   * @default JSON, with 204 and an empty body (HEAD) read as `undefined`
   */
  parse?: (response: Response) => Promise<TData>;
}

const defaultBackoff = (): Backoff => exponential({ base: 500, cap: 10_000, jitter: 0.25 });

/** Development only: the `TypeError` for a name {@link createFetchState} does not read or a value it refuses, if one is given. */
function refusedOption(options: object): TypeError | undefined {
  const names = [...fetchRetryOptionNames().filter((name) => name !== 'signal' && name !== 'wake'), 'init', 'parse'];
  const ended = { signal: 'left out: `stop()` aborts the fetch', wake: 'left out: `retryNow()` ends the wait' } as Record<string, string>;
  const { fetch, init } = options as FetchStateOptions<unknown>;
  try {
    checkNames(options, names, { elsewhere: (name) => (Object.hasOwn(ended, name) ? ended[name] : undefined) });
    // As fetchWithRetry checks its init, which here always meets a fetch of createFetchState's own.
    if (fetch === undefined || fetch === globalThis.fetch) checkNames(init, REQUEST_INIT_NAMES, { path: 'init.' });
    // Values too, named as given here (flat), where fetchWithRetry would name them `retry.` options.
    const { init: _init, parse: _parse, ...retry } = options as FetchStateOptions<unknown>;
    checkFetchRetryValues(retry, '');
  } catch (error) {
    return error as TypeError;
  }
  return undefined;
}

/**
 * One fetch of `url` with retries, as a UI sees it: {@link fetchWithRetry}
 * (network errors and 408, 429, 5xx retried; any other non-2xx fails at
 * once with an `HttpError`), the 2xx body parsed, and a snapshot to
 * subscribe to, with `attempt` of `limit` and `nextAttemptAt` for "attempt
 * 2 of 4, next try in 3 s". `retryNow()` ends the wait in progress through
 * `RetryOptions.wake`: the same call goes on, with its retries, backoff
 * position, deadline and Idempotency-Key. Nothing is sent before `start()`.
 *
 * `options` may be a function: read at each start, and again for `parse`
 * and `onRetry`, so those are always the latest. A `null` url fetches nothing.
 */
export function createFetchState<TData = unknown>(url: string | URL | null, options?: OptionsSource<FetchStateOptions<TData>>): FetchState<TData> {
  const key = urlKey(url);
  const read = reader(options);
  const limit = (retries: unknown): number => limitOf(retries, RETRY_DEFAULTS.retries);
  const first = limit(read().retries);
  const store = createStore(key === null ? fetchIdle<TData>(undefined, first) : fetchLoading<TData>(undefined, first));
  const run = oneRun();
  const button = tryNow();
  const patch = (change: { attempt: number; nextAttemptAt: number | undefined; paced: boolean }): void => {
    const now = store.getSnapshot();
    if (now.status === 'loading') store.set({ ...now, ...change });
  };
  const stop = (): void => {
    run.end();
    const now = store.getSnapshot();
    if (now.status === 'loading') store.set(fetchIdle(now.data, now.limit));
  };

  const launch = (): void => {
    if (key === null) return stop();
    const given = read();
    const { init, parse: _parse, onRetry: _onRetry, fetch: givenFetch, backoff, ...retry } = given;
    const most = limit(given.retries);
    if (typeof __DEV__ === 'undefined' || __DEV__) {
      // Refused here, not by fetchWithRetry, which would name it as one of its `retry` options; an error snapshot, as fetchWithRetry's own TypeErrors are.
      const refused = refusedOption(given);
      if (refused) {
        run.end();
        return store.set(fetchFailed(store.getSnapshot().data, refused, 0, most));
      }
    }
    store.set(fetchLoading(store.getSnapshot().data, most));
    run.begin((signal, live) => {
      const clock = resolveClock(retry.env);
      const send = givenFetch ?? globalThis.fetch;
      let sent = 0;
      const settle = (next: (now: FetchSnapshot<TData>) => FetchSnapshot<TData>): void => {
        if (!live()) return;
        run.end();
        store.set(next(store.getSnapshot()));
      };
      fetchWithRetry(key, {
        ...init,
        signal,
        retry: {
          ...retry,
          backoff: backoff ?? defaultBackoff(),
          wake: button.wake,
          // Counts each attempt as it leaves; a `fetch` that is no function is handed on, for fetchWithRetry to refuse by name.
          fetch:
            typeof send === 'function'
              ? (input, requestInit) => {
                  sent += 1;
                  if (live()) patch({ attempt: sent, nextAttemptAt: undefined, paced: false });
                  return send(input, requestInit);
                }
              : givenFetch,
          onRetry: (info) => {
            if (!live()) return;
            patch({ attempt: info.attempt, nextAttemptAt: clock.now() + info.delay, paced: info.paced });
            read().onRetry?.(info);
          },
        },
      })
        .then(async (response) => {
          if (!response.ok) throw new HttpError(response, key);
          const parse = read().parse ?? (parseJson as (response: Response) => Promise<TData>);
          try {
            return await parse(response);
          } catch (error) {
            if (signal.aborted) throw signal.reason;
            throw new ParseError(response, key, error);
          }
        })
        .then(
          (data) => settle(() => fetchDone(data, sent, most)),
          (error: unknown) => settle((now) => fetchFailed(now.data, error, sent, most)),
        );
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
