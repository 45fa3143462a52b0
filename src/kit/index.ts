// The public API of `pollite/kit`: the building blocks pollite's own features and adapters are made of, for
// authors of features (`use`), framework adapters and tiers such as pollite/cluster, so that none of them copies one.
// An application needs none of it: the root entry, `pollite`, holds what an application calls.

// The engine's extension contract: what a feature passed in `use` plugs into (docs/architecture.md, "The feature contract").
export type { LoopHooks, PollAnswer, Hold } from '../engine/hooks.js';
export type { PollFeature, PollCall, PollRunner, PollSink, PollSettings, LoopContext, LoopStart } from '../poll/feature.js';
export type { RunCheckpoint, ResumedRun, ResumeRequest } from '../engine/resume-point.js';

// Sharing one loop among callers, and what makes two polls one poll.
export { createSharedLoops } from './shared-loop.js';
export type { SharedLoop, SharedLoops } from './shared-loop.js';
export { shareIdentity } from './share-identity.js';
export type { ShareIdentity, ShareKeyOption } from './share-identity.js';
export { shareKey, UNCOMPARED_HEADERS } from './share-key.js';
export { sha256Hex } from './sha256-hex.js';

// The key of a url's state, the one the observe states and the framework adapters are keyed by.
export { urlKey } from '../observe/url-key.js';

// Time: the one timer, the real clock, the abortable sleep, the wait for a visible page.
export { startTimer } from '../env/timer.js';
export { realClock } from '../env/clock.js';
export { sleep } from '../env/sleep.js';
export { whenVisible } from '../env/when-visible.js';

// The retry policy, as pure functions and the constants they tune by.
export { retryDecision, PACED_FROM } from '../policy/retry-decision.js';
export type { RetryDecision, RetryPolicy, Failure, BudgetPrices } from '../policy/retry-decision.js';
export { errorOutcome } from '../policy/error-outcome.js';
export { RETRY_AFTER_SPREAD, spread } from '../policy/spread.js';
export { fitDeadline } from '../policy/deadline-rule.js';
export type { DeadlineFit } from '../policy/deadline-rule.js';
export { nextSlowdown, slowsPace } from '../policy/throttle.js';

// HTTP: what a server's answer says, and bodies.
export { serverWait, serverSays } from '../http/server-wait.js';
export type { ServerSaid, WaitSource } from '../http/server-wait.js';
export { parseRetryAfterMs } from '../http/retry-after-ms.js';
export { parsePollInterval } from '../http/poll-interval.js';
export { parseGrpcPushback } from '../http/grpc-pushback.js';
export { bodyWait, readBodyWait, MAX_HINT_BYTES, MAX_HINT_MS } from '../http/body-wait.js';
export { freshFor } from '../http/cache-control.js';
export { parseRetryAfter } from '../http/parse-retry-after.js';
export type { ParseRetryAfterOptions, HeaderReader } from '../http/parse-retry-after.js';
export { parseRateLimit } from '../http/rate-limit.js';
export type { RateLimit } from '../http/rate-limit.js';
export { isRetryableStatus } from '../http/retryable-status.js';
export { parseJson, readText, discardBody, MAX_BODY_BYTES } from '../http/body.js';
export { redactUrl } from '../errors/redact-url.js';
