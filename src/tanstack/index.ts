// The public API of `pollite/tanstack`: pollite's politeness for TanStack
// Query (@tanstack/query-core 5, an optional peer dependency; only its
// types are used, so this entry adds no runtime import of it).

export { retry, retryDelay, retryPolicy } from './retry-policy.js';
export type { TanStackRetry } from './retry-policy.js';
export type { RetryPolicyOptions } from './retry-policy-options.js';
export { conditionalQueryFn } from './conditional-query-fn.js';
export type { ConditionalQueryOptions } from './conditional-query-fn.js';
export { refetchUntil } from './refetch-until.js';
export type { QueryStateLike } from './refetch-until.js';
