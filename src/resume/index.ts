// The public API of `pollite/resume`: polls, operations and retried writes that survive a reload, a crash
// and a deploy. A checkpoint is passed in `use` of `poll`, as `operation.resume` or as `retry.resume`;
// a file store for Node is `pollite/resume/node`'s, so that no browser bundle pulls in node:fs.

export { checkpoint } from './checkpoint-feature.js';
export type { CheckpointOptions, Checkpointed } from './checkpoint-feature.js';
export { readCheckpoint, CHECKPOINT_VERSION, MAX_CHECKPOINT_CHARS } from './checkpoint.js';
export type { Checkpoint } from './checkpoint.js';
export { CheckpointRefusedError, isCheckpointRefusedError } from './checkpoint-refused-error.js';
export type { RefusedReason } from './checkpoint-refused-error.js';
export type { CheckpointStore } from './store.js';
export { webStorage } from './web-storage.js';
export type { WebStorageLike } from './web-storage.js';
export { memoryStore } from './memory-store.js';
export type { MemoryStore } from './memory-store.js';
