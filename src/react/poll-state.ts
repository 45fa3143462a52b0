import type { PollEvent } from '../index.js';

/** What {@link usePoll} shows, as plain data. */
export interface PollState<T> {
  /**
   * - `idle`: not polling: `url` is null, `cancel()` was called, or the poller
   *   has not started yet (the first render, and always on the server)
   * - `polling`: a request is in flight or the next one is scheduled
   * - `done`: `isDone` accepted a body, now in `data`
   * - `error`: polling stopped on an error, now in `error`
   */
  status: 'idle' | 'polling' | 'done' | 'error';
  /** The last parsed 2xx body of this url; kept across `retry()` and `cancel()`. */
  data: T | undefined;
  /** Why polling stopped (`HttpError`, `PollGaveUpError`, `ParseError`, a `TimeoutError`...); `undefined` otherwise. */
  error: unknown;
  /** Consecutive failures right now: 0 while healthy. */
  attempt: number;
  /**
   * Epoch ms of the next request while waiting after a failure (or while the
   * origin cools down after another request's Retry-After); `undefined` otherwise.
   */
  nextAttemptAt: number | undefined;
}

/** The state of a url that has not been polled yet. */
export const IDLE: PollState<never> = Object.freeze({
  status: 'idle',
  data: undefined,
  error: undefined,
  attempt: 0,
  nextAttemptAt: undefined,
});

const isSuccess = (status: number): boolean => status === 304 || (status >= 200 && status < 300);

/**
 * Folds one poller event into the state: `attempt` follows the poller's
 * count of consecutive failures, `nextAttemptAt` is set while a failure's
 * wait runs. Returns `state` itself when nothing changed, so React skips the
 * render.
 */
export function applyPollEvent<T>(state: PollState<T>, event: PollEvent): PollState<T> {
  let attempt = state.attempt;
  let nextAttemptAt = state.nextAttemptAt;
  if (event.type === 'request') {
    attempt = event.attempt - 1;
    nextAttemptAt = undefined;
  } else if (event.type === 'response' && isSuccess(event.status)) {
    attempt = 0;
  } else if (event.type === 'retry') {
    attempt = event.failures;
    nextAttemptAt = event.at;
  } else if (event.type === 'cooldown') {
    // Another request to this origin was told to wait: this one waits as long.
    nextAttemptAt = event.at;
  } else if (event.type === 'pause' || event.type === 'wake') {
    nextAttemptAt = undefined;
  }
  return attempt === state.attempt && nextAttemptAt === state.nextAttemptAt ? state : { ...state, attempt, nextAttemptAt };
}
