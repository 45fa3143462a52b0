// The public API of `pollite/resume/node`: a checkpoint store of files, for Node (and Deno, Bun). Its own
// entry so that node:fs never reaches a browser bundle of `pollite/resume`.

export { fileStore, fileAt } from './file-store.js';
export type { CheckpointStore } from './store.js';
