// The public API of `pollite/svelte`: Svelte 5 (runes) functions over pollite's observable states.
// svelte is an optional peer dependency of this entry only; `view.svelte.js` is compiled by the app's Svelte compiler.

export { createPoll, createFetchWithRetry, createPollOperation } from './primitives.js';
export type { UrlSource } from './view.svelte.js';
