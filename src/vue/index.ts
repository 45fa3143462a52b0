// The public API of `pollite/vue`: Vue 3 composables over pollite's observable states.
// Vue is an optional peer dependency of this entry only.

export { usePoll, useFetchWithRetry, usePollOperation } from './composables.js';
export type { UrlSource } from './use-view.js';
