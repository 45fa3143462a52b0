// The public API of `pollite`: what an application calls. Every export is named here on purpose:
// nothing else under src/ is reachable from outside. The building blocks of features and adapters
// (the engine's contract, the retry policy, Retry-After and bodies, the shared loop) are `pollite/kit`'s.

// What pollite throws, and the guards that work across copies of the package.
export { PolliteError } from './errors/pollite-error.js';
export { HttpError, isHttpError } from './errors/http-error.js';
export { PollGaveUpError, isPollGaveUpError } from './errors/poll-gave-up-error.js';
export { ParseError, isParseError } from './errors/parse-error.js';
export { isTimeoutError, type TimeoutErrorLike } from './errors/timeout-error.js';

export { poll } from './poll/poll.js';
export type { PollOptions } from './poll/poll-options.js';
export type { PollEvent, GiveUpReason } from './engine/events.js';
export type { WaitSource } from './http/server-wait.js';

export { retry } from './retry/retry.js';
export { fetchWithRetry } from './retry/fetch-with-retry.js';
export type { RetryOptions, FetchRetryOptions, FetchWithRetryInit, RetryContext, RetryInfo, GiveUpInfo } from './retry/retry-options.js';
export { createRetryBudget } from './retry/retry-budget.js';
export type { RetryBudget, RetryBudgetOptions } from './retry/retry-budget.js';
export { isRetryableError } from './policy/is-retryable-error.js';

export { fullJitter } from './backoff/full-jitter.js';
export { equalJitter } from './backoff/equal-jitter.js';
export { decorrelatedJitter } from './backoff/decorrelated-jitter.js';
export { exponential } from './backoff/exponential.js';
export type { ExponentialOptions } from './backoff/exponential.js';
export { constant } from './backoff/constant.js';
export type { Backoff, BackoffOptions } from './backoff/types.js';

// What `env` takes (tests, the simulator, a platform without a DOM) and the `wake` of a "try now" button.
export type { Clock } from './env/clock.js';
export type { Environment } from './env/environment.js';
export type { VisibilitySource } from './env/visibility.js';
export type { OnlineSource } from './env/online.js';
export type { Wake } from './env/wait.js';
