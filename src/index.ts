// The public API of `pollite`. Every export is named here on purpose:
// nothing else under src/ is reachable from outside.

export { poll } from './core/poll.js';
export type { PollOptions } from './core/poll-options.js';
export type { PollEvent } from './core/poll-events.js';

export { retry } from './retry/retry.js';
export { fetchWithRetry } from './retry/fetch-with-retry.js';
export type { RetryOptions, FetchRetryOptions, FetchWithRetryInit, RetryContext, RetryInfo } from './retry/retry-options.js';
export { isRetryableError } from './retry/is-retryable-error.js';
export { createRetryBudget } from './retry/retry-budget.js';
export type { RetryBudget, RetryBudgetOptions } from './retry/retry-budget.js';

export { sleep } from './env/sleep.js';
export { whenVisible } from './env/when-visible.js';
export type { Environment } from './env/environment.js';
export type { VisibilitySource } from './env/visibility.js';
export type { OnlineSource } from './env/online.js';
export type { FocusSource } from './env/focus.js';
export type { AdaptiveInterval } from './cooperate/adaptive-interval.js';

export { parseRetryAfter } from './http/parse-retry-after.js';
export type { ParseRetryAfterOptions } from './http/parse-retry-after.js';
export { isRetryableStatus } from './http/retryable-status.js';

export { fullJitter } from './backoff/full-jitter.js';
export { equalJitter } from './backoff/equal-jitter.js';
export { decorrelatedJitter } from './backoff/decorrelated-jitter.js';
export { exponential } from './backoff/exponential.js';
export type { ExponentialOptions } from './backoff/exponential.js';
export { constant } from './backoff/constant.js';
export type { Backoff, BackoffOptions } from './backoff/types.js';

export { PolliteError } from './errors/pollite-error.js';
export { HttpError, isHttpError } from './errors/http-error.js';
export { PollGaveUpError, isPollGaveUpError } from './errors/poll-gave-up-error.js';
export { ParseError, isParseError } from './errors/parse-error.js';
export { isTimeoutError } from './errors/timeout-error.js';
