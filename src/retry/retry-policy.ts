import { expo } from '../backoff/ceiling.js';
import type { RetryPolicy } from '../policy/retry-decision.js';
import type { NormalizedRetryOptions } from './normalize-retry-options.js';

/**
 * The policy `retry` and `fetchWithRetry` run the engine under: `retries`
 * bounds the retries of one call, paced ones included (a call must end);
 * no interval; the backoff given, else full jitter from 500 ms to 10 s.
 */
export const retryPolicyOf = (o: NormalizedRetryOptions, isRetryableStatus: (status: number) => boolean): RetryPolicy => ({
  retries: o.retries,
  backoff: o.backoff ?? ((n) => o.env.random() * expo(500, 10_000, n)),
  maxRetryAfter: o.maxRetryAfter,
  interval: 0,
  countPaced: true,
  isRetryableStatus,
});
