/** setTimeout's largest delay, ms (about 24.8 days). */
const MAX_TIMER = 2 ** 31 - 1;
import { isRetryableError } from '../index.js';

/** The part of a TanStack `Query` that {@link refetchUntil} reads. */
export interface QueryStateLike<TData> {
  /** The query's state, as TanStack Query keeps it. */
  state: {
    /** The query's data: the last successful result, if any. */
    data: TData | undefined;
    /** Whether the query has data (`success`), failed last (`error`) or has neither yet (`pending`). */
    status: 'pending' | 'error' | 'success';
    /** The error of the last failed fetch, if it failed. */
    error: unknown;
  };
}

/**
 * A TanStack Query `refetchInterval` function that polls every `interval`
 * ms until `isDone(data)` accepts the query's data (a terminal state:
 * success **and** failure), then stops. It also stops when the query
 * errored with something not worth retrying (a 404, a parse error), which
 * polling would only repeat; after a transient error it keeps polling.
 *
 * TanStack keeps one request in flight per query and, by default, pauses
 * the interval while the window is unfocused (`refetchIntervalInBackground`).
 *
 * Throws a `TypeError` naming `isDone` or `interval` when one is invalid.
 *
 * @example
 * refetchInterval: refetchUntil((job) => job.status === 'done' || job.status === 'failed', 2000)
 */
export function refetchUntil<TData>(
  isDone: (data: TData) => boolean,
  interval: number,
): (query: QueryStateLike<TData>) => number | false {
  if (typeof isDone !== 'function') throw new TypeError('Expected `isDone` to be a function');
  // TanStack reads 0 as "no interval": a positive delay is required.
  if (typeof interval !== 'number' || !(interval > 0) || interval > MAX_TIMER) {
    throw new TypeError(`Expected \`interval\` to be a number of ms > 0 and <= ${MAX_TIMER}, got ${String(interval)}`);
  }
  return (query) => {
    const { data, status, error } = query.state;
    if (data !== undefined && isDone(data)) return false;
    if (status === 'error' && !isRetryableError(error)) return false;
    return interval;
  };
}
