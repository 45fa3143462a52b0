// The public API of `pollite/solid`: Solid primitives over pollite's observable states.
// solid-js is an optional peer dependency of this entry only.

export { createPoll, createFetchWithRetry, createPollOperation } from './primitives.js';
export type { UrlSource } from './view.js';
