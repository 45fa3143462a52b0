import type { WaitSource } from '../http/server-wait.js';

/**
 * What a poller reports through `onEvent`, so a UI or a log can show what it
 * is doing and when it will act next. Times are epoch ms, durations ms;
 * `attempt` numbers the tries since the last success from 1 (see the
 * counting table in the docs).
 */
export type PollEvent =
  /** A request is about to go out: attempt `attempt` since the last success. */
  | {
      /** The event's name. */
      type: 'request';
      /** The attempt being sent: 1 for the first request after a success, n + 1 for the n-th retry. */
      attempt: number;
      /** Whether it carries `If-None-Match` (or `If-Modified-Since`) from the last answer. */
      conditional: boolean;
      /**
       * With `preferWait` (of `pollite/operation`), while the server says it
       * applies it (`Preference-Applied: wait`): it holds this request until
       * the job changes, this long at most, ms. A long answer is then the
       * server waiting on the job, not a slow request.
       */
      held?: number;
    }
  /** Any response arrived: 2xx, 304 and errors alike. `ms`: time since the request left. */
  | {
      /** The event's name. */
      type: 'response';
      /** The HTTP status. */
      status: number;
      /** How long the answer took, from the request leaving to its headers arriving, ms. */
      ms: number;
    }
  /**
   * Attempt `attempt` failed; the next goes out at `at`. `failures`: counted
   * failures in a row (answers paced by a Retry-After of a second or more
   * are not counted). `retryAfter`: the server's wait that paced this one, or null.
   */
  | {
      /** The event's name. */
      type: 'retry';
      /** The attempt that failed. */
      attempt: number;
      /** Counted failures in a row, this one included (0 when a Retry-After of a second or more paced it). */
      failures: number;
      /** The wait before the next attempt, ms. */
      delay: number;
      /** When the next attempt is due, epoch ms. */
      at: number;
      /** What failed: no answer (`network`), no answer in time (`timeout`), or an answer with a retryable status. */
      reason: 'network' | 'timeout' | 'status';
      /** The status, when there was an answer. */
      status?: number;
      /** The server's wait (Retry-After, or a rate-limit reset) that set this delay's floor, ms; null when the backoff chose it. */
      retryAfter: number | null;
      /** Which of the server's signals set `retryAfter` (`retry-after`, `retry-after-ms`, `ratelimit`, `grpc-pushback`, `body`): see {@link WaitSource}; only when `retryAfter` is set. */
      source?: WaitSource;
      /** The server paced this answer (a wait of a second or more): not a failure, and not to be shown as one. */
      paced?: boolean;
    }
  /**
   * Attempt `attempt` failed and is not tried again: the call ends with it
   * (or, for `deadline`, with the `TimeoutError` that follows at once).
   * Sent once per call that ends so, never after an abort by the caller.
   */
  | {
      /** The event's name. */
      type: 'give-up';
      /** The attempt that failed and is not retried. */
      attempt: number;
      /** Why it is not retried: see {@link GiveUpReason}. */
      reason: GiveUpReason;
      /** The status, when there was an answer. */
      status?: number;
    }
  /** The wait after a 2xx or 304. */
  | {
      /** The event's name. */
      type: 'wait';
      /** The wait, ms: `interval`, or longer while the server throttles or asks for it. */
      delay: number;
      /** When the next request is due, epoch ms. */
      at: number;
      /**
       * Which of the server's signals this wait is (`x-poll-interval`,
       * `retry-after`, `retry-after-ms`, `ratelimit`): see {@link WaitSource}.
       * Only when the server's wait is what set it, not `interval`, a
       * feature's pace or a throttled pace.
       */
      source?: WaitSource;
    }
  /** Polling paused: the page is hidden, the network is down, or (with `pauseWhenBlurred()`) the window lost focus. */
  | {
      /** The event's name. */
      type: 'pause';
      /** Why nothing is sent. */
      reason: 'hidden' | 'offline' | 'blurred';
    }
  /** Polling resumed after a pause. */
  | {
      /** The event's name. */
      type: 'resume';
    }
  /** Another request to `origin` drew a 429/503 with Retry-After: this one waits until then (plus a spread). */
  | {
      /** The event's name. */
      type: 'cooldown';
      /** The wait, ms. */
      delay: number;
      /** When the next request is due, epoch ms. */
      at: number;
      /** The origin that is cooling down, such as `https://api.example.com`. */
      origin: string;
    }
  /** A wait ended early: the page became visible, the network came back, the window got the focus, or a "try now" (`now`). */
  | {
      /** The event's name. */
      type: 'wake';
      /** What ended the wait. */
      reason: 'visible' | 'online' | 'focus' | 'now';
    }
  /** A sharing feature: this caller now polls for all (`leader`) or receives another's updates (`follower`). */
  | {
      /** The event's name. */
      type: 'share';
      /** This caller's part. */
      role: 'leader' | 'follower';
      /**
       * `share()` only, with `leader`: another loop of this realm already
       * polls the same URL, and this caller could not join it. Its first
       * part compared by identity that no `key` vouches for (`fetch`,
       * `parse`, `use`, `init.<name>`), or `request` when they differ in
       * what is sent (headers, body, method, `init` values).
       */
      apart?: LocalReason | 'request';
    }
  /**
   * `shareTabs()` or `cluster.share()` shares this poll only with the polls
   * of its own tab or process (as `share()`): `reason` names what cannot be
   * compared beyond it, and no `key` option says that it is the same there.
   */
  | {
      /** The event's name. */
      type: 'share';
      /** This caller's part: a loop of this tab or process only. */
      role: 'local';
      /** Your own `fetch` or `parse`, a feature after the sharing one that runs the loop (`use`), or an object in `init` such as Node's `dispatcher` (`init.dispatcher`). */
      reason: LocalReason;
    };

/** What keeps a poll from being shared beyond its tab or process: its own `fetch` or `parse`, a feature after the sharing one that runs the loop (`use`), or an object in `init` such as Node's `dispatcher` (`init.dispatcher`). */
export type LocalReason = 'fetch' | 'parse' | 'use' | `init.${string}`;

/**
 * Why a failed attempt is not tried again, as the `give-up` event and
 * `onGiveUp` say:
 *
 * - `not-retryable`: the failure is not one the policy retries (a status
 *   outside `statusCodes`, a 4xx, an error `shouldRetry` refused, a bug);
 * - `not-idempotent`: a write (POST, PATCH) without an `idempotencyKey`,
 *   which is sent once;
 * - `body-not-replayable`: a body the first send consumed (a stream, a
 *   `Request`'s own body);
 * - `exhausted`: `retries` are used up;
 * - `budget`: the retry budget could not pay for the retry;
 * - `deadline`: the total `timeout` passed before the retry could be sent.
 */
export type GiveUpReason = 'not-retryable' | 'not-idempotent' | 'body-not-replayable' | 'exhausted' | 'budget' | 'deadline';
