import { fullJitter, isRetryableError } from '../index.js';
import { errorOutcome, retryDecision, type RetryDecision, type RetryPolicy } from '../kit/index.js';
import { count, duration, func, validateOptions, type Check } from '../options/check.js';
import type { RetryPolicyOptions } from './retry-policy-options.js';

/** The pair to spread into a TanStack query's options. */
export interface TanStackRetry {
  /** TanStack's `retry`: whether failure number `failureCount + 1` may be retried. */
  retry: (failureCount: number, error: unknown) => boolean;
  /** TanStack's `retryDelay`: ms before that retry (Retry-After, else backoff). */
  retryDelay: (failureCount: number, error: unknown) => number;
}

const SPEC: { [K in keyof RetryPolicyOptions]-?: Check } = { maxRetries: count, backoff: func, maxRetryAfter: duration, shouldRetry: func, random: func, now: func };

/** Checks the options present, naming the first bad one (or an unknown name) in a `TypeError`: in development only. */
function checked(options: RetryPolicyOptions | undefined): RetryPolicyOptions {
  if (typeof __DEV__ === 'undefined' || __DEV__) validateOptions(options, SPEC);
  return options ?? {};
}

/**
 * pollite's retry policy as TanStack Query's `retry` and `retryDelay`:
 * only retryable errors are retried (network failures, timeouts, HttpError
 * 408/429/5xx; never 4xx, aborts or bugs); a pollite `HttpError` whose
 * response carries a valid Retry-After waits that long (up to 20% more,
 * so clients do not return in lockstep), anything else waits full jitter.
 * Both decide through pollite's one pure `retryDecision`.
 *
 * Throws a `TypeError` naming the bad option.
 *
 * @example
 * const { retry, retryDelay } = retryPolicy({ maxRetries: 5 });
 * useQuery({ queryKey: ['job', id], queryFn, retry, retryDelay });
 */
export function retryPolicy(options?: RetryPolicyOptions): TanStackRetry {
  const o = checked(options);
  const random = o.random ?? (() => Math.random());
  const now = o.now ?? (() => Date.now());
  const shouldRetry = o.shouldRetry ?? isRetryableError;
  const policy: RetryPolicy = {
    retries: o.maxRetries ?? 3,
    backoff: o.backoff ?? fullJitter({ base: 1000, cap: 30_000, random }),
    maxRetryAfter: o.maxRetryAfter ?? 300_000,
    interval: 0,
    countPaced: true,
    // `shouldRetry` already judged the error (the default checks the status), so a custom one has the last word.
    isRetryableStatus: () => true,
  };
  // `retry` only asks whether: it draws no backoff and no randomness (a seeded `random` stays in step with `retryDelay`).
  const whetherPolicy: RetryPolicy = { ...policy, backoff: () => 0 };
  const decide = (failureCount: number, error: unknown, p: RetryPolicy, chance: number): RetryDecision | undefined => {
    if (!shouldRetry(error)) return undefined;
    // TanStack passes the failures before this one, counted from 0, exactly what retryDecision expects.
    return retryDecision(errorOutcome(error), failureCount, p, now(), chance);
  };
  return {
    retry: (failureCount, error) => decide(failureCount, error, whetherPolicy, 0)?.retry === true,
    retryDelay: (failureCount, error) => {
      const decision = decide(failureCount, error, policy, random());
      return decision?.retry ? decision.delay : 0;
    },
  };
}

const defaults = retryPolicy();

/**
 * TanStack's `retry` with pollite's defaults: at most 3 retries, only for
 * retryable errors. Pair it with {@link retryDelay}.
 */
export const retry = defaults.retry;

/**
 * TanStack's `retryDelay` with pollite's defaults: the error's Retry-After
 * (plus up to 20%), else full jitter with base 1 s and cap 30 s.
 */
export const retryDelay = defaults.retryDelay;
