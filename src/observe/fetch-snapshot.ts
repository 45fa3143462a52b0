/**
 * What a UI shows of one fetch with retries, as plain immutable data: one
 * object per change, so `status` (or `loading`) narrows the rest.
 *
 * `attempt` follows the counting table: the attempt in flight or about to
 * be sent (1 for the first try), or while waiting the attempt that failed
 * ("attempt 2 of 4 failed, next in 3 s"); after the end, the last attempt
 * sent; 0 while idle. `limit` is `retries + 1`.
 */
export type FetchSnapshot<TData> =
  /** Nothing to fetch (no url), or stopped. `data` is kept across a stop. */
  | {
      readonly status: 'idle';
      readonly loading: false;
      readonly data: TData | undefined;
      readonly error: undefined;
      readonly attempt: number;
      readonly limit: number;
      readonly nextAttemptAt: undefined;
    }
  /**
   * Fetching: from the state's creation (so a server render and the first
   * render show `loading`, not a flash of nothing) until an answer, an error
   * or a stop. `nextAttemptAt` (epoch ms) is set while waiting between attempts.
   */
  | {
      readonly status: 'loading';
      readonly loading: true;
      readonly data: TData | undefined;
      readonly error: undefined;
      readonly attempt: number;
      readonly limit: number;
      readonly nextAttemptAt: number | undefined;
    }
  /** A 2xx answer, parsed into `data`. */
  | {
      readonly status: 'done';
      readonly loading: false;
      readonly data: TData;
      readonly error: undefined;
      readonly attempt: number;
      readonly limit: number;
      readonly nextAttemptAt: undefined;
    }
  /**
   * It failed: an `HttpError` for any other answer (at once for 400, 401,
   * 403, 404...; after the last retry for 408, 429, 5xx), a network error,
   * a `ParseError`, a `TimeoutError`, a `TypeError` naming a bad option.
   * `data` is the last success's, if any.
   */
  | {
      readonly status: 'error';
      readonly loading: false;
      readonly data: TData | undefined;
      readonly error: unknown;
      readonly attempt: number;
      readonly limit: number;
      readonly nextAttemptAt: undefined;
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
});
