/**
 * What a UI shows of one fetch with retries, as plain immutable data: one
 * object per change, so `status` (or `loading`) narrows the rest.
 *
 * `attempt` follows the counting table: the attempt in flight or about to
 * be sent (1 for the first try), or while waiting the attempt that failed
 * ("attempt 2 of 4 failed, next in 3 s"); after the end, the last attempt
 * sent; 0 while idle. `limit` is `retries + 1`.
 *
 * `paced` tells a wait the server asked for from a failure: while it is
 * true, `nextAttemptAt` is the server's time and `attempt` is no failure
 * ("busy, next try in 2 s", not "attempt 1 of 4 failed").
 */
export type FetchSnapshot<TData> =
  /** Nothing to fetch (no url), or stopped. `data` is kept across a stop. */
  | {
      /** Not fetching: no url, or stopped. */
      readonly status: 'idle';
      /** Not loading. */
      readonly loading: false;
      /** The last success's body, if any: kept across a stop. */
      readonly data: TData | undefined;
      /** No error while idle. */
      readonly error: undefined;
      /** 0: nothing is in flight. */
      readonly attempt: number;
      /** `retries + 1`: the most attempts ("attempt 2 of 4"). */
      readonly limit: number;
      /** Nothing is scheduled. */
      readonly nextAttemptAt: undefined;
      /** Not paced: nothing is scheduled. */
      readonly paced: false;
    }
  /**
   * Fetching: from the state's creation (so a server render and the first
   * render show `loading`, not a flash of nothing) until an answer, an error
   * or a stop. `nextAttemptAt` (epoch ms) is set while waiting between
   * attempts; `paced` says that wait is the server's, not a failure's.
   */
  | {
      /** Fetching: from the state's creation until an answer, an error or a stop. */
      readonly status: 'loading';
      /** True exactly while `status` is `'loading'`. */
      readonly loading: true;
      /** The last success's body, if any (a retry keeps it). */
      readonly data: TData | undefined;
      /** No error while loading. */
      readonly error: undefined;
      /** The attempt in flight or about to be sent (1 for the first try), or while waiting the attempt that failed. */
      readonly attempt: number;
      /** `retries + 1`: the most attempts ("attempt 2 of 4"). */
      readonly limit: number;
      /** When the next attempt goes out, epoch ms, while waiting between attempts; unset while one is in flight. */
      readonly nextAttemptAt: number | undefined;
      /**
       * True while waiting because the server asked: the answer had a
       * Retry-After or a rate-limit reset of a second or more (`RetryInfo.paced`).
       * Then `nextAttemptAt` is the server's time, not a failure's backoff:
       * show "busy", not "attempt 1 of 4 failed". False while an attempt is
       * in flight and while waiting after a failure.
       */
      readonly paced: boolean;
    }
  /** A 2xx answer, parsed into `data`. */
  | {
      /** A 2xx answer arrived and was parsed. */
      readonly status: 'done';
      /** Not loading. */
      readonly loading: false;
      /** The parsed body. */
      readonly data: TData;
      /** No error: the fetch succeeded. */
      readonly error: undefined;
      /** The attempt that succeeded. */
      readonly attempt: number;
      /** `retries + 1`: the most attempts ("attempt 2 of 4"). */
      readonly limit: number;
      /** Nothing is scheduled. */
      readonly nextAttemptAt: undefined;
      /** Not paced: nothing is scheduled. */
      readonly paced: false;
    }
  /**
   * It failed: an `HttpError` for any other answer (at once for 400, 401,
   * 403, 404...; after the last retry for 408, 429, 5xx), a network error,
   * a `ParseError`, a `TimeoutError`, a `TypeError` naming a bad option.
   * `data` is the last success's, if any.
   */
  | {
      /** The fetch failed. */
      readonly status: 'error';
      /** Not loading. */
      readonly loading: false;
      /** The last success's body, if any. */
      readonly data: TData | undefined;
      /** What failed: an `HttpError` (any answer that is not a 2xx), a network error, a `ParseError`, a `TimeoutError` DOMException, or a `TypeError` naming a bad option. */
      readonly error: unknown;
      /** The last attempt sent. */
      readonly attempt: number;
      /** `retries + 1`: the most attempts ("attempt 2 of 4"). */
      readonly limit: number;
      /** Nothing is scheduled. */
      readonly nextAttemptAt: undefined;
      /** Not paced: nothing is scheduled. */
      readonly paced: false;
    };

/** The idle snapshot, keeping `data`. */
export const fetchIdle = <TData>(data: TData | undefined, limit: number): FetchSnapshot<TData> => ({
  status: 'idle',
  loading: false,
  data,
  error: undefined,
  attempt: 0,
  limit,
  nextAttemptAt: undefined,
  paced: false,
});

/** The snapshot of a fetch about to send its first attempt, keeping `data`. */
export const fetchLoading = <TData>(data: TData | undefined, limit: number): FetchSnapshot<TData> => ({
  status: 'loading',
  loading: true,
  data,
  error: undefined,
  attempt: 1,
  limit,
  nextAttemptAt: undefined,
  paced: false,
});

/** The snapshot of a fetch that got its answer: `data`, from attempt `attempt`. */
export const fetchDone = <TData>(data: TData, attempt: number, limit: number): FetchSnapshot<TData> => ({
  status: 'done',
  loading: false,
  data,
  error: undefined,
  attempt,
  limit,
  nextAttemptAt: undefined,
  paced: false,
});

/** The snapshot of a fetch that failed with `error` after attempt `attempt`, keeping `data`. */
export const fetchFailed = <TData>(data: TData | undefined, error: unknown, attempt: number, limit: number): FetchSnapshot<TData> => ({
  status: 'error',
  loading: false,
  data,
  error,
  attempt,
  limit,
  nextAttemptAt: undefined,
  paced: false,
});
