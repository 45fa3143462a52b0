// The public API of `pollite/operation`: start a long-running operation, follow
// the operation its answer names, poll it politely to a terminal state, fetch the result.

export { pollOperation } from './poll-operation.js';
export { preferWait } from './prefer-wait.js';
export type { PollOperationInit, OperationOptions, OperationAnswer, OperationState } from './operation-options.js';
export { OperationFailedError, isOperationFailedError } from './operation-failed-error.js';
export type { OperationCheckpoint, ResumedOperation, SavedMonitor } from './operation-resume.js';
