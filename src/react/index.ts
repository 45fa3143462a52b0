// The public API of `pollite/react`. Every export is named here on purpose.
// React is a peer dependency of this entry only: the core entry never imports it.
// The hooks return `PollView` and `FetchView` from `pollite`: the same shape as pollite/vue, /svelte and /solid.

export { usePoll, useFetchWithRetry, usePollOperation } from './hooks.js';
