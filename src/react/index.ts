// The public API of `pollite/react`. Every export is named here on purpose.
// React is a peer dependency of this entry only: the core entry never imports it.

export { usePoll } from './use-poll.js';
export type { UsePollResult } from './use-poll.js';
export type { PollState } from './poll-state.js';

export { useFetchWithRetry } from './use-fetch-with-retry.js';
export type { UseFetchWithRetryOptions, UseFetchWithRetryResult, FetchWithRetryState } from './use-fetch-with-retry.js';
