// The public API of `pollite`. Every export is named here on purpose:
// nothing else under src/ is reachable from outside.

export { poll } from './poll/poll.js';
export type { PollOptions } from './poll/poll-options.js';
export type { PollEvent } from './engine/events.js';
export type { LoopHooks, PollAnswer, Hold } from './engine/hooks.js';
export type { PollFeature, PollCall, PollRunner, PollSink, PollSettings, LoopContext } from './poll/feature.js';

export { retry } from './retry/retry.js';
export { fetchWithRetry } from './retry/fetch-with-retry.js';
export type { RetryOptions, FetchRetryOptions, FetchWithRetryInit, RetryContext, RetryInfo } from './retry/retry-options.js';
export { createRetryBudget } from './retry/retry-budget.js';
export type { RetryBudget, RetryBudgetOptions } from './retry/retry-budget.js';


export { retryDecision, PACED_FROM } from './policy/retry-decision.js';
export type { RetryDecision, RetryPolicy, Failure, BudgetPrices } from './policy/retry-decision.js';
export { isRetryableError } from './policy/is-retryable-error.js';
export { errorOutcome } from './policy/error-outcome.js';
export { RETRY_AFTER_SPREAD, spread } from './policy/spread.js';

export { sleep } from './env/sleep.js';
export { whenVisible } from './env/when-visible.js';
export type { Clock } from './env/clock.js';
export type { Environment } from './env/environment.js';
export type { VisibilitySource } from './env/visibility.js';
export type { OnlineSource } from './env/online.js';
export type { Wake } from './env/wait.js';

export { parseJson, discardBody } from './http/body.js';
export { parseRetryAfter } from './http/parse-retry-after.js';
export type { ParseRetryAfterOptions, HeaderReader } from './http/parse-retry-after.js';
export { parseRateLimit } from './http/rate-limit.js';
export type { RateLimit } from './http/rate-limit.js';
export { serverWait } from './http/server-wait.js';
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
export { redactUrl } from './errors/redact-url.js';
