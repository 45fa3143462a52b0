import type { RunCheckpoint } from '../engine/resume-point.js';
import type { Backoff } from '../backoff/types.js';
import type { Clock } from '../env/clock.js';
import type { GiveUpReason } from '../engine/events.js';
import type { WaitSource } from '../http/server-wait.js';
import type { Wake } from '../env/wait.js';
import type { RetryBudget } from './retry-budget.js';

/** What `retry` hands to each attempt. */
export interface RetryContext {
  /** This attempt's number: 1 for the first try, n + 1 for the n-th retry. */
  attempt: number;
  /**
   * Aborts when the caller aborts, the total `timeout` passes or this
   * attempt's `attemptTimeout` passes: hand it to `fetch` and friends.
   */
  signal: AbortSignal;
}

/** What `onRetry` learns about each retry, before its wait. */
export interface RetryInfo {
  /** The failure being retried; for `fetchWithRetry`'s statuses, an `HttpError` whose body is discarded. */
  error: unknown;
  /** The attempt that failed: 1 for the first try (so also the number of this retry). */
  attempt: number;
  /** The wait before the next attempt, whole ms. */
  delay: number;
  /** The server asked for this wait (a Retry-After or rate-limit reset of a second or more): a paced answer, not a failure to show. */
  paced: boolean;
  /** Which of the server's signals asked for it (`retry-after`, `retry-after-ms`, `ratelimit`, `grpc-pushback`, `body`); only when `paced`. */
  source?: WaitSource;
}

/** What `onGiveUp` learns when a failed attempt is not tried again, just before the call ends with it. */
export interface GiveUpInfo {
  /**
   * The failure that is not retried; for `fetchWithRetry`'s statuses, an
   * `HttpError` carrying the very response the call resolves with (or,
   * with `throwHttpErrors`, rejects with): leave its body to that code.
   */
  error: unknown;
  /** The attempt that failed: 1 for the first try. */
  attempt: number;
  /**
   * Why it is not retried: `not-retryable` (a status or error the policy
   * does not retry), `not-idempotent` (a POST or PATCH without an
   * `idempotencyKey`), `body-not-replayable` (a stream body, a `Request`'s
   * own body), `exhausted` (`retries` used up), `budget` (the budget could
   * not pay), `deadline` (`timeout` passed before the retry; the call then
   * rejects with the `TimeoutError`).
   */
  reason: GiveUpReason;
}

/** Options of {@link retry}. Validated when `retry` is called. */
export interface RetryOptions {
  /**
   * Failures that are tried again: at most `retries + 1` attempts.
   * @default 3
   */
  retries?: number;
  /**
   * Wait before the n-th retry (n = 1 for the first), ms. A valid
   * Retry-After on a retried response (or an error's `response`) overrides it.
   * @default fullJitter({ base: 500, cap: 10000 }), drawing from `env.random`
   */
  backoff?: Backoff;
  /**
   * Which failures are worth another try. `attempt` is the attempt that
   * failed (1 for the first try). Timed-out attempts (`attemptTimeout`) are
   * always retried, and aborts never are, whatever this says.
   * @default isRetryableError (for `fetchWithRetry`: also every response in `statusCodes`)
   * @example shouldRetry: (error) => isRetryableError(error) || error instanceof MyFlakyError
   */
  shouldRetry?: (error: unknown, ctx: { attempt: number }) => boolean | Promise<boolean>;
  /** Called before each retry's wait. */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Called once when a failed attempt is not tried again, with the reason,
   * just before the call ends with that failure (`retries: 3` and a POST
   * sent once says `not-idempotent` here). Not called on success, nor when
   * the caller aborts.
   * @default none
   * @example onGiveUp: ({ reason, attempt, error }) => log.warn(`not retried after attempt ${attempt}: ${reason}`, error)
   */
  onGiveUp?: (info: GiveUpInfo) => void;
  /** Aborts the attempt in flight and any wait; the call rejects with `signal.reason`. */
  signal?: AbortSignal;
  /**
   * Total deadline for all attempts and waits, ms (> 0), met, not guessed:
   * a wait that would cross it is shortened for one last try (never below
   * a wait the server asked for), and when it is due the call rejects with
   * a `TimeoutError` DOMException whose `cause` is the last failure. For `fetchWithRetry`
   * it also bounds reading the body of the response it resolves with.
   * @default none
   */
  timeout?: number;
  /**
   * Deadline of each attempt, ms (> 0): its signal aborts with a
   * `TimeoutError` and the attempt counts as a retryable failure.
   * @default none
   */
  attemptTimeout?: number;
  /**
   * A {@link RetryBudget} shared with other calls: a retry is attempted only
   * if the budget can pay for it.
   * @default none (every call retries on its own)
   */
  budget?: RetryBudget;
  /**
   * Cooldown: a 503 with Retry-After (for `retry`: on an error carrying a
   * response, such as `HttpError`) makes every pollite request to that
   * origin in this realm wait until then, a 429 every request to its
   * route; and this call waits for cooldowns others announced. `false`
   * opts out of both.
   * @default true
   */
  cooldown?: boolean;
  /**
   * Longest wait a Retry-After header may impose, ms.
   * @default 300000
   */
  maxRetryAfter?: number;
  /**
   * Ends the wait before the next attempt early when it is ready (a "try
   * now" button), the cooldown's included: the next attempt goes out at
   * once, with the retries, backoff position and deadline it had.
   * @default none
   */
  wake?: Wake;
  /**
   * Clock, timers and randomness. Defaults to the real ones; tests and the
   * simulator inject virtual ones.
   * @default the real `Date.now`, `setTimeout`, `clearTimeout`, `Math.random`
   */
  env?: Partial<Clock>;
}

/** Options of {@link fetchWithRetry}, passed as `init.retry`. */
export interface FetchRetryOptions extends RetryOptions {
  /**
   * Methods retried. POST and PATCH are never retried without an
   * `idempotencyKey`, even when listed; with one they always are.
   * @default ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']
   */
  methods?: string[];
  /**
   * Statuses retried; any other response resolves at once.
   * @default [408, 429, 500, 502, 503, 504]
   */
  statusCodes?: number[];
  /**
   * Sends the same `Idempotency-Key` header on every attempt of this call,
   * which makes POST and PATCH safe to retry: `true` generates a random
   * UUID per call (keeping an `Idempotency-Key` header you set yourself), a
   * string is used as is.
   * @default none: writes are sent once
   */
  idempotencyKey?: boolean | string;
  /**
   * Rejects with an `HttpError` (carrying the response, body unread) when
   * the call ends with an error status, as ky and got do: a status that is
   * not retried at once, a retried one once retries run out or the budget
   * cannot pay. An error status is one of 400 or more, or a 3xx other than
   * 304 when fetch followed redirects (with `redirect: 'manual'` a 3xx is
   * what was asked for); a 304 and an opaque response (status 0) resolve.
   * `false` resolves with every response, like `fetch`.
   * @default false
   * @example const user = await (await fetchWithRetry('/api/user', { retry: { throwHttpErrors: true } })).json();
   */
  throwHttpErrors?: boolean;
  /**
   * The fetch to use.
   * @default globalThis.fetch, looked up when `fetchWithRetry` is called
   */
  fetch?: typeof fetch;
  /**
   * Keeps this call's progress in a store so that a run after a reload, a
   * crash or a deploy continues it: a write whose key was saved is sent
   * again with that key (never a new one, and never at all without one), no
   * sooner than the wait the server asked for, with the failures counted and
   * the deadline kept. See `checkpoint()` of `pollite/resume`.
   * @default none: nothing is saved
   * @example retry: { idempotencyKey: true, resume: checkpoint({ store: webStorage(localStorage), key: 'order' }) }
   */
  resume?: RunCheckpoint;
}

/** The second argument of {@link fetchWithRetry}: fetch's own, plus `retry`. */
export type FetchWithRetryInit = RequestInit & {
  /** How to retry: {@link FetchRetryOptions}. Without it, `fetchWithRetry` retries with the defaults. */
  retry?: FetchRetryOptions;
};
