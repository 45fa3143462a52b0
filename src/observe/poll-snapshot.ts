import type { PollEvent } from '../engine/events.js';

/**
 * What a UI shows of a poll, as plain immutable data: one object per
 * change, so `status` narrows the rest.
 *
 * `attempt` follows the counting table: the attempt in flight (1 for the
 * first request after a success), or while waiting after a failure the
 * attempt that failed ("attempt 2 of 9 failed, next in 3 s"); 1 again after
 * each success; 0 while idle. `limit` is `retries + 1`.
 *
 * `paced` tells a wait the server asked for from a failure: while it is
 * true, `nextAttemptAt` is the server's time and `attempt` failed nothing
 * ("busy, next try in 2 s", not "attempt 1 of 9 failed").
 */
export type PollSnapshot<TData> =
  /** Not polling: never started (the first render, and always on the server), stopped, or no url. `data` is kept across a stop. */
  | {
      /** Not polling. */
      readonly status: 'idle';
      /** The last 2xx body of the poll that ran before, if any: kept across a stop. */
      readonly data: TData | undefined;
      /** No error while idle. */
      readonly error: undefined;
      /** 0: nothing is in flight. */
      readonly attempt: number;
      /** `retries + 1`: the most attempts in a row. */
      readonly limit: number;
      /** Nothing is scheduled. */
      readonly nextAttemptAt: undefined;
      /** Not paused: not polling at all. */
      readonly paused: false;
      /** Not paced: nothing is scheduled. */
      readonly paced: false;
    }
  /**
   * Polling: a request in flight, or the next one scheduled. `data` is the
   * last 2xx body (undefined before the first). `nextAttemptAt` (epoch ms)
   * is set while waiting after a failure, a Retry-After (a 2xx's pacing
   * signal included) or an origin cooldown; the interval wait after a
   * success leaves it unset. `paced`:
   * that wait is the server's (a Retry-After, a cooldown), not a failure's.
   * `paused`: nothing is sent because the page is hidden or offline (or,
   * with `pauseWhenBlurred()`, the window lost the focus).
   */
  | {
      /** A request in flight, or the next one scheduled. */
      readonly status: 'polling';
      /** The last 2xx body; `undefined` before the first. */
      readonly data: TData | undefined;
      /** No error while polling. */
      readonly error: undefined;
      /** The attempt in flight (1 for the first request after a success), or while waiting after a failure the attempt that failed. */
      readonly attempt: number;
      /** `retries + 1`: the most attempts in a row ("attempt 2 of 9"). */
      readonly limit: number;
      /** When the next attempt goes out, epoch ms, while waiting after a failure, a Retry-After or an origin cooldown; unset during the interval wait after a success. */
      readonly nextAttemptAt: number | undefined;
      /** True while nothing is sent: the page is hidden or offline (or, with `pauseWhenBlurred()`, the window lost the focus). */
      readonly paused: boolean;
      /**
       * True while waiting because the server asked: a Retry-After or a
       * rate-limit reset of a second or more (not counted as a failure), a
       * wait a 2xx's pacing signal set (its `wait` event has a `source`:
       * Retry-After, X-Poll-Interval, a rate limit; an operation's 202), or
       * an origin cooldown another request to the same origin was told.
       * Then `nextAttemptAt` is set and `attempt` is no failure: show "busy",
       * not "attempt 1 of 9 failed". False while a request is in flight,
       * paused, during the interval wait, and while waiting after a failure.
       */
      readonly paced: boolean;
    }
  /** `isDone` accepted `data`; `attempt` is the attempt that got it. */
  | {
      /** `isDone` accepted `data`: polling is over. */
      readonly status: 'done';
      /** The terminal body. */
      readonly data: TData;
      /** No error: the poll finished. */
      readonly error: undefined;
      /** The attempt that got the terminal body. */
      readonly attempt: number;
      /** `retries + 1`: the most attempts in a row. */
      readonly limit: number;
      /** Nothing is scheduled. */
      readonly nextAttemptAt: undefined;
      /** Not paused: polling is over. */
      readonly paused: false;
      /** Not paced: polling is over. */
      readonly paced: false;
    }
  /**
   * Polling stopped on `error` (`HttpError`, `PollGaveUpError`,
   * `ParseError`, a `TimeoutError`, a `TypeError` naming a bad option);
   * `data` is the last body before it, if any; `attempt` the last sent.
   */
  | {
      /** Polling stopped on an error. */
      readonly status: 'error';
      /** The last 2xx body before the error, if any. */
      readonly data: TData | undefined;
      /** What stopped it: `HttpError`, `PollGaveUpError`, `ParseError`, a `TimeoutError` DOMException, or a `TypeError` naming a bad option. */
      readonly error: unknown;
      /** The last attempt sent. */
      readonly attempt: number;
      /** `retries + 1`: the most attempts in a row. */
      readonly limit: number;
      /** Nothing is scheduled. */
      readonly nextAttemptAt: undefined;
      /** Not paused: polling is over. */
      readonly paused: false;
      /** Not paced: polling is over. */
      readonly paced: false;
    };

/** The idle snapshot, keeping `data`. */
export const pollIdle = <TData>(data: TData | undefined, limit: number): PollSnapshot<TData> => ({
  status: 'idle',
  data,
  error: undefined,
  attempt: 0,
  limit,
  nextAttemptAt: undefined,
  paused: false,
  paced: false,
});

const isSuccess = (status: number): boolean => status === 304 || (status >= 200 && status < 300);

/**
 * Folds one of the poller's events into a polling snapshot: `attempt`,
 * `nextAttemptAt`, `paused` and `paced`. Returns `snapshot` itself when
 * nothing changed (and for any status but `polling`), so no render follows.
 */
export function applyPollEvent<TData>(snapshot: PollSnapshot<TData>, event: PollEvent): PollSnapshot<TData> {
  if (snapshot.status !== 'polling') return snapshot;
  let { attempt, nextAttemptAt, paused, paced } = snapshot;
  if (event.type === 'request') {
    attempt = event.attempt;
    nextAttemptAt = undefined;
    paused = paced = false;
  } else if (event.type === 'response') {
    // The failures in a row are over: the next request is attempt 1.
    if (isSuccess(event.status)) attempt = 1;
  } else if (event.type === 'retry') {
    attempt = event.attempt;
    nextAttemptAt = event.at;
    paced = event.paced === true;
  } else if (event.type === 'wait') {
    // A wait the server asked for after a 2xx (its Retry-After, X-Poll-Interval, rate limit): counted down, and
    // shown as the server's; the interval's own wait (no `source`) is not.
    if (event.source) {
      nextAttemptAt = event.at;
      paced = true;
    }
  } else if (event.type === 'cooldown') {
    // Another request to this origin was told to wait: this one waits as long, at the server's word.
    nextAttemptAt = event.at;
    paced = true;
  } else if (event.type === 'pause') {
    // A pause replaces the wait: there is nothing to count down to until it ends.
    paused = true;
    nextAttemptAt = undefined;
    paced = false;
  } else if (event.type === 'resume') {
    paused = false;
  } else if (event.type === 'wake') {
    nextAttemptAt = undefined;
    paced = false;
  }
  return attempt === snapshot.attempt && nextAttemptAt === snapshot.nextAttemptAt && paused === snapshot.paused && paced === snapshot.paced
    ? snapshot
    : { ...snapshot, attempt, nextAttemptAt, paused, paced };
}
