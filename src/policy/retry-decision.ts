import type { Backoff } from '../backoff/types.js';
import type { HeaderReader } from '../http/parse-retry-after.js';
import { serverSays, type ServerSaid, type WaitSource } from '../http/server-wait.js';
import { spread } from './spread.js';

/** What happened to one attempt that did not succeed. */
export type Failure =
  /** An answer with a status that is not a success. */
  | {
      /** An HTTP answer. */
      type: 'status';
      /** Its status. */
      status: number;
      /** Its headers: where Retry-After, the rate-limit headers and the other signals are read. */
      headers: HeaderReader;
      /** What the server said, when the caller has read it already (the loop reads it once per answer, a body's hint included); read from `headers` when absent. */
      said?: ServerSaid | null;
    }
  /** No answer: the connection failed, dropped or was refused. */
  | {
      /** A network failure. */
      type: 'network';
      /** What fetch (or the attempt) threw. */
      error: unknown;
      /**
       * The request never reached a server (connection refused, no such
       * host): it cost no server anything, so a poll retries it at its own
       * `interval`, not a growing backoff (a service coming up is seen at once).
       */
      unreachable?: boolean;
    }
  /** The attempt ran out of time (`requestTimeout`, `attemptTimeout`). */
  | {
      /** A timed-out attempt. */
      type: 'timeout';
      /** The timeout error. */
      error: unknown;
    };

/** The policy a caller retries under; `poll`, `retry`, `fetchWithRetry` and the adapters each fill one. */
export interface RetryPolicy {
  /** Counted failures in a row that are tried again; one more stops (`exhausted`). */
  retries: number;
  /** The wait after the n-th counted failure, ms (on top of `interval`); handed the last one it chose. */
  backoff: Backoff;
  /** Largest wait a Retry-After may impose, ms. */
  maxRetryAfter: number;
  /** Floor of every wait, and added to every backoff (poll's `interval`; 0 elsewhere). */
  interval: number;
  /** Whether an answer paced by the server (Retry-After of a second or more) counts toward `retries`. */
  countPaced: boolean;
  /** Which statuses are worth another try. */
  isRetryableStatus(status: number): boolean;
}

/**
 * What retries cost in a shared retry budget: the decision prices each
 * retry; the caller withdraws that `cost` and does not retry when the
 * budget cannot pay.
 */
export interface BudgetPrices {
  /** Tokens a retry costs. */
  retryCost: number;
  /** Tokens a retry after a timeout costs: a timeout hints at an overloaded server. */
  timeoutCost: number;
}

/** The verdict on a failed attempt. */
export type RetryDecision =
  /** Try again after `delay`. */
  | {
      /** The attempt is retried. */
      retry: true;
      /** ms to wait before the next attempt. */
      delay: number;
      /** Counted failures in a row, this one included. */
      failures: number;
      /** What kind of failure it was. */
      reason: Failure['type'];
      /** The failed answer's status, when there was an answer. */
      status?: number;
      /** The server's wait (Retry-After, rate-limit reset) that paced this one, capped, ms; null when the backoff chose it. */
      retryAfter: number | null;
      /** Which signal of the server's set `retryAfter`; only when it is set. */
      source?: WaitSource;
      /** Whether the server paced this answer (a wait of a second or more): not a failure, and not shown as one. */
      paced: boolean;
      /** The backoff drawn for this wait, ms (0 when the server paced it): handed to the next `backoff` call as `previous`. */
      backoff: number;
      /** Tokens to withdraw from the budget for this retry; only when a budget was priced. */
      cost?: number;
    }
  /** Stop, and surface the failure. */
  | {
      /** The attempt is not retried. */
      retry: false;
      /** Counted failures in a row, this one included. */
      failures: number;
      /** Why not: the failure is not worth another try, or `retries` are used up. */
      reason: 'not-retryable' | 'exhausted';
      /** The failed answer's status, when there was an answer. */
      status?: number;
    };

/** A Retry-After under this is a rounding artefact (`0` during a window's last second), not pacing. */
export const PACED_FROM = 1000;

const checkedBackoff = (ms: number): number => {
  if (typeof ms !== 'number' || !(ms >= 0 && ms < Infinity)) {
    throw new TypeError(`Expected \`backoff\` to return a finite number >= 0, got ${String(ms)}`);
  }
  return ms;
};

/**
 * The one retry policy of pollite, as a pure function: given a failed
 * attempt, the counted failures before it, the policy, the time, a random
 * number in [0, 1), optionally a budget's prices and the backoff chosen
 * last (`previous`, 0 after a success): try again, after how long and at
 * what cost, or stop? Every wait is in whole ms.
 *
 * - A status the policy does not retry, or an answer whose server asks
 *   not to be retried (a negative `grpc-retry-pushback-ms`): stop
 *   (`not-retryable`).
 * - A server's wait of a second or more (Retry-After, a rate-limit
 *   reset, any signal `serverSays` reads): the server is alive and pacing
 *   us (`paced`; `source` names the signal). Wait at least
 *   that long, spread up to 20 % above it, never past `maxRetryAfter`
 *   (a hard cap: see `spread`), never less than `interval`; counted
 *   only when `countPaced`.
 * - Otherwise count the failure; past `retries` stop (`exhausted`); else
 *   wait `interval + backoff(failures, previous, interval)`, or just
 *   `interval` for a request that never reached a server (when there is
 *   an interval). A server's wait under a second (`0`, a date just
 *   past) is such a failure, and the wait is at least a second plus the
 *   spread (within `maxRetryAfter`): a server that answers
 *   `Retry-After: 0` forever gets a counted, paced failure, not a hot loop.
 * - With `prices`, the retry costs `timeoutCost` after a timeout and
 *   `retryCost` otherwise; a caller whose budget cannot pay does not retry.
 *
 * The deadline is not decided here but by `fitDeadline`, which the loop
 * applies to every wait.
 */
export function retryDecision(
  failure: Failure,
  failuresBefore: number,
  policy: RetryPolicy,
  now: number,
  random: number,
  prices?: BudgetPrices,
  previous = 0,
): RetryDecision {
  const status = failure.type === 'status' ? failure.status : undefined;
  const about = status === undefined ? {} : { status };
  const stop = { retry: false, failures: failuresBefore, reason: 'not-retryable', ...about } as const;
  if (status !== undefined && !policy.isRetryableStatus(status)) return stop;
  // The server's own figure decides whether it paces us; the cap only bounds the wait.
  const said = failure.type === 'status' ? (failure.said !== undefined ? failure.said : serverSays(failure.status, failure.headers, now)) : null;
  if (said?.stop) return stop;
  const asked = said ? said.ms : null;
  const paced = asked !== null && asked >= PACED_FROM;
  const failures = paced && !policy.countPaced ? failuresBefore : failuresBefore + 1;
  if (failures > policy.retries) return { retry: false, failures, reason: 'exhausted', ...about };
  const cost = prices && (failure.type === 'timeout' ? prices.timeoutCost : prices.retryCost);
  let backoff = 0;
  let delay: number;
  if (paced) delay = Math.ceil(Math.max(policy.interval, spread(asked, random, policy.maxRetryAfter)));
  else if (failure.type === 'network' && failure.unreachable && policy.interval > 0) delay = Math.ceil(policy.interval);
  else {
    backoff = checkedBackoff(policy.backoff(failures, previous, policy.interval));
    delay = Math.ceil(Math.max(policy.interval + backoff, asked === null ? 0 : spread(PACED_FROM, random, policy.maxRetryAfter)));
  }
  return {
    retry: true,
    delay,
    failures,
    reason: failure.type,
    ...about,
    retryAfter: paced ? Math.min(asked, policy.maxRetryAfter) : null,
    ...(paced && { source: said!.source }),
    paced,
    backoff,
    ...(cost === undefined ? {} : { cost }),
  };
}
