import { useCallback, useRef } from 'react';
import { exponential, HttpError, ParseError, parseJson, type Backoff, type FetchRetryOptions } from '../index.js';
import { fetchWithSkippableWaits, type SkippableFetch } from './skippable-fetch.js';
import { useKeyedState } from './use-keyed-state.js';
import { useLatest } from './use-latest.js';
import { useRun } from './use-run.js';

/** Options of {@link useFetchWithRetry}: `fetchWithRetry`'s retry options, plus the request and its parser. */
export interface UseFetchWithRetryOptions<T> extends Omit<FetchRetryOptions, 'signal'> {
  /**
   * Retries after the first try: `maxAttempts` is `retries + 1`.
   * @default 3
   */
  retries?: number;
  /**
   * Wait before the n-th retry, ms (a valid Retry-After overrides it).
   * @default exponential({ base: 500, cap: 10000, jitter: 0.25 }): 500-625 ms, 1-1.25 s, 2-2.5 s...
   */
  backoff?: Backoff;
  /** Passed to `fetch` (method, headers, body...). Its `signal` is ignored: use `cancel()`. @default {} */
  init?: RequestInit;
  /**
   * Reads a 2xx body; read from the latest render. A throw becomes a `ParseError`.
   * @default JSON, with 204 and an empty body (HEAD) read as `undefined`
   */
  parse?: (response: Response) => Promise<T>;
}

/** What {@link useFetchWithRetry} shows. */
export interface FetchWithRetryState<T> {
  /** The parsed body of the last success for this url; kept across `retry()` and `cancel()`. */
  data: T | undefined;
  /** True from the first try until a result, an error or `cancel()` (also on the server, when `url` is set). */
  loading: boolean;
  /**
   * Why it stopped: an `HttpError` for any non-2xx answer (at once for 400,
   * 401, 403, 404...; after the last retry for 408, 429, 5xx), a network
   * error, a `ParseError`, a `TimeoutError`...; `undefined` otherwise.
   */
  error: unknown;
  /**
   * Retries so far: 0 during the first try, n while waiting for or sending
   * the n-th retry. The try in progress, or next, is number `attempt + 1`
   * of `maxAttempts` ("attempt 2 of 4").
   */
  attempt: number;
  /** `retries + 1`. */
  maxAttempts: number;
  /** Epoch ms of the next try while waiting between tries ("next try in 3 s"); `undefined` otherwise. */
  nextAttemptAt: number | undefined;
}

/** What {@link useFetchWithRetry} returns: the state and three controls. */
export interface UseFetchWithRetryResult<T> extends FetchWithRetryState<T> {
  /** Fetches again from attempt 0 (a "Retry" button), keeping `data`. */
  retry(): void;
  /** Skips the wait in progress and tries at once; does nothing while no wait is in progress. */
  retryNow(): void;
  /** Stops the request in flight and any wait; `loading` becomes false, `data` is kept. */
  cancel(): void;
}

/** The hook's own default, gentler on a user's patience than `fetchWithRetry`'s full jitter. */
const defaultBackoff = (): Backoff => exponential({ base: 500, cap: 10_000, jitter: 0.25 });

/** `retries` when the caller gives none. */
const DEFAULT_RETRIES = 3;

const maxAttemptsOf = (retries: number): number => (Number.isInteger(retries) && retries >= 0 ? retries + 1 : 1);

const before = <T>(key: string | null, retries: number): FetchWithRetryState<T> => ({
  data: undefined,
  loading: key !== null,
  error: undefined,
  attempt: 0,
  maxAttempts: maxAttemptsOf(retries),
  nextAttemptAt: undefined,
});

/**
 * Fetches `url` once, retrying with {@link fetchWithRetry} (network errors
 * and 408, 429, 5xx; 4xx fail at once), and exposes the retrying as it
 * happens: `attempt` of `maxAttempts` and `nextAttemptAt`, for "attempt 2
 * of 4, next try in 3 s", with a Retry button (`retry()`) and a "try now"
 * button (`retryNow()`). `null` fetches nothing.
 *
 * A thin adapter: the retry policy is `fetchWithRetry`'s. `parse` and
 * `onRetry` are read from the latest render; the other options when a fetch
 * starts (a new `url`, or `retry()`). A new `url` aborts the old fetch;
 * unmounting aborts it and nothing updates afterwards; under `<StrictMode>`
 * a mount sends one request. On the server it renders `loading: true` and
 * touches neither `window` nor `document`.
 *
 * @example
 * const { data, error, loading, attempt, maxAttempts, retry } = useFetchWithRetry<User>('/api/user');
 * if (error) return <button onClick={retry}>Retry</button>;
 * if (loading) return <p>Loading (attempt {attempt + 1} of {maxAttempts})</p>;
 */
export function useFetchWithRetry<T = unknown>(
  url: string | URL | null,
  options?: UseFetchWithRetryOptions<T>,
): UseFetchWithRetryResult<T> {
  const key = url === null ? null : String(url);
  const keyRef = useLatest(key);
  const optionsRef = useLatest(options);
  const retries = options?.retries ?? DEFAULT_RETRIES;
  const state = useKeyedState<FetchWithRetryState<T>>(key, (k) => before(k, retries));
  const call = useRef<SkippableFetch | null>(null);

  const { restart, cancel: abort } = useRun(key, (signal, runKey) => {
    const update = state.updaterFor(signal, runKey);
    const { init, parse: _parse, ...given } = optionsRef.current ?? {};
    const runRetries = given.retries ?? DEFAULT_RETRIES;
    const now = (): number => (given.env?.now ?? Date.now)();
    update((view) => ({
      ...view,
      loading: true,
      error: undefined,
      attempt: 0,
      maxAttempts: maxAttemptsOf(runRetries),
      nextAttemptAt: undefined,
    }));
    const current = fetchWithSkippableWaits(
      runKey,
      init ?? {},
      {
        ...given,
        retries: runRetries,
        backoff: given.backoff ?? defaultBackoff(),
        onRetry: (info) => optionsRef.current?.onRetry?.(info),
      },
      signal,
      {
        onRetry: ({ attempt, delay }) => update((view) => ({ ...view, attempt, nextAttemptAt: now() + delay })),
        onSend: () => update((view) => (view.nextAttemptAt === undefined ? view : { ...view, nextAttemptAt: undefined })),
      },
    );
    call.current = current;
    current.response
      .then(async (response) => {
        if (!response.ok) throw new HttpError(response, runKey);
        const parse = optionsRef.current?.parse ?? (parseJson as (response: Response) => Promise<T>);
        try {
          return await parse(response);
        } catch (error) {
          if (signal.aborted) throw signal.reason;
          throw new ParseError(response, runKey, error);
        }
      })
      .then(
        (data) => update((view) => ({ ...view, data, loading: false, nextAttemptAt: undefined })),
        (error: unknown) => update((view) => ({ ...view, error, loading: false, nextAttemptAt: undefined })),
      )
      .finally(() => {
        if (call.current === current) call.current = null;
      });
  });

  const retryNow = useCallback(() => {
    call.current?.skipWait();
  }, []);
  const { change } = state;
  const cancel = useCallback(() => {
    abort();
    change(keyRef.current, (view) => (view.loading ? { ...view, loading: false, nextAttemptAt: undefined } : view));
  }, [abort, change, keyRef]);

  return { ...state.view, retry: restart, retryNow, cancel };
}
