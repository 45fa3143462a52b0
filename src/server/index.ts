// The public API of `pollite/server`: helpers that make any web-standard
// (Request in, Response out) API pleasant to poll. The node:http adapter is
// `pollite/server/node`.

export { jsonWithETag } from './json-with-etag.js';
export type { JsonWithETagInit } from './json-with-etag.js';
export { evaluateIfNoneMatch } from './if-none-match.js';
export type { IfNoneMatchResult } from './if-none-match.js';
export { strongETag } from './entity-tag.js';
export { retryLater } from './retry-later.js';
export type { RetryLaterInit } from './retry-later.js';
export { pollingCors } from './polling-cors.js';
export type { WebHandler } from './polling-cors.js';
export type { PollingCorsOptions } from './polling-cors-options.js';
