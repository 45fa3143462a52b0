import type { Backoff } from '../index.js';

/** Options of {@link retryPolicy}. */
export interface RetryPolicyOptions {
  /**
   * Retries after the first failure; one more failure and the query errors.
   * Answers with a Retry-After count too, so a server that keeps saying
   * "later" cannot keep a query retrying forever.
   * @default 3 (TanStack's own default)
   */
  maxRetries?: number;
  /**
   * Wait before the n-th retry when the error carries no usable Retry-After.
   * @default fullJitter({ base: 1000, cap: 30000 })
   */
  backoff?: Backoff;
  /**
   * Longest wait a Retry-After may impose, ms. A longer one is clamped.
   * @default 300000
   */
  maxRetryAfter?: number;
  /**
   * Which errors are worth another try.
   * @default isRetryableError: network failures, timeouts, HttpError 408/429/5xx
   */
  shouldRetry?: (error: unknown) => boolean;
  /** Randomness in [0, 1) for the spread above Retry-After. @default Math.random */
  random?: () => number;
  /** The clock an HTTP-date Retry-After is measured against, epoch ms. @default Date.now */
  now?: () => number;
}
