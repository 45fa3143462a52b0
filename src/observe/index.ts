// The public API of `pollite/observe`: how a poll's, a fetch's or an operation's life maps to
// UI state, framework-agnostic. The React, Vue, Svelte and Solid adapters only subscribe.

export { createPollState } from './poll-state.js';
export { createFetchState } from './fetch-state.js';
export { createOperationState } from './operation-state.js';
export type { OperationSnapshot, OperationRunState, OperationView } from './operation-state.js';
export type { FetchStateOptions } from './fetch-state.js';
export { createCountdown } from './countdown.js';
export type { Countable } from './countdown.js';
export type { PollSnapshot } from './poll-snapshot.js';
export type { FetchSnapshot } from './fetch-snapshot.js';
export type { RunState, PollState, FetchState, PollView, FetchView, ViewControls } from './run-state.js';
export type { Subscribable } from './store.js';
export type { OptionsSource } from './one-run.js';
