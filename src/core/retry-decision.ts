import type { Backoff } from '../backoff/types.js';
import { parseRetryAfter } from '../http/parse-retry-after.js';

/** What happened to one attempt that did not succeed. */
export type FailureOutcome =
  | { type: 'status'; status: number; retryAfter: string | null }
  | { type: 'network'; error: unknown }
  | { type: 'timeout'; error: unknown };

/** The policy a caller retries under; `poll`, `retry` and `fetchWithRetry` each fill one. */
export interface RetryPolicy {
  /** Counted consecutive failures tolerated; one more gives up. */
  maxFailures: number;
  backoff: Backoff;
  /** Largest wait a Retry-After may impose, ms. */
  maxRetryAfter: number;
  /** Floor of every wait, and added to every backoff (poll's `interval`; 0 elsewhere). */
  interval: number;
  /** Whether an answer carrying a valid Retry-After counts toward `maxFailures`. */
  countPaced: boolean;
  /** Which statuses are worth another try. */
  isRetryableStatus(status: number): boolean;
}

/**
 * What a shared retry budget can pay right now: a snapshot the caller takes
 * just before deciding, so the decision stays pure. The caller withdraws the
 * returned `cost` itself.
 */
export interface BudgetQuote {
  /** Tokens in the budget now. */
  available: number;
  /** Tokens a retry costs. */
  retryCost: number;
  /** Tokens a retry after a timeout costs. */
  timeoutCost: number;
}

/** The verdict on a failed attempt. */
export type RetryDecision =
  | {
      retry: true;
      /** ms to wait before the next attempt. */
      delay: number;
      /** Counted consecutive failures including this one. */
      failures: number;
      reason: FailureOutcome['type'];
      status?: number;
      /** The parsed Retry-After that paced this wait, ms; null when backoff chose it. */
      retryAfter: number | null;
      /** Tokens to withdraw from the budget for this retry; only when a budget was quoted. */
      cost?: number;
    }
  | { retry: false; failures: number; reason: 'not-retryable' | 'exhausted' | 'budget'; status?: number };

/** How far above the server's Retry-After a client may land: the spread that breaks lockstep. */
export const RETRY_AFTER_SPREAD = 0.2;

const checkedBackoff = (ms: number): number => {
  if (typeof ms !== 'number' || !(ms >= 0) || !Number.isFinite(ms)) {
    throw new TypeError(`Expected \`backoff\` to return a finite number >= 0, got ${String(ms)}`);
  }
  return ms;
};

/**
 * The one retry policy of pollite, as a pure function: given a failed
 * attempt, the failures counted before it, the policy, the time and a
 * random number in [0, 1), should we try again, and after how long?
 *
 * - A status the policy does not retry: stop at once.
 * - A valid Retry-After: the server is alive and pacing us. Wait at least
 *   that long and at most 1.2 times that long (clamped to `maxRetryAfter`),
 *   never less than `interval`; counted only when `countPaced`.
 * - Otherwise: count the failure; past `maxFailures` stop; else wait
 *   `interval + backoff(failures)`.
 * - With a `budget` quote, a retry the budget cannot pay (a timeout costs
 *   `timeoutCost`, anything else `retryCost`) stops with reason `budget`.
 */
export function retryDecision(
  outcome: FailureOutcome,
  failuresBefore: number,
  policy: RetryPolicy,
  now: number,
  random: number,
  budget?: BudgetQuote,
): RetryDecision {
  const status = outcome.type === 'status' ? outcome.status : undefined;
  if (status !== undefined && !policy.isRetryableStatus(status)) {
    return { retry: false, failures: failuresBefore, reason: 'not-retryable', status };
  }
  const retryAfter =
    outcome.type === 'status' ? parseRetryAfter(outcome.retryAfter, { now, max: policy.maxRetryAfter }) : null;
  const paced = retryAfter !== null;
  const failures = paced && !policy.countPaced ? failuresBefore : failuresBefore + 1;
  if (failures > policy.maxFailures) {
    return { retry: false, failures, reason: 'exhausted', ...(status === undefined ? {} : { status }) };
  }
  const cost = budget && (outcome.type === 'timeout' ? budget.timeoutCost : budget.retryCost);
  if (budget && budget.available < cost!) {
    return { retry: false, failures, reason: 'budget', ...(status === undefined ? {} : { status }) };
  }
  const delay = paced
    ? Math.max(policy.interval, Math.min(policy.maxRetryAfter, retryAfter + retryAfter * RETRY_AFTER_SPREAD * random))
    : policy.interval + checkedBackoff(policy.backoff(failures));
  return {
    retry: true,
    delay,
    failures,
    reason: outcome.type,
    ...(status === undefined ? {} : { status }),
    retryAfter,
    ...(cost === undefined ? {} : { cost }),
  };
}
