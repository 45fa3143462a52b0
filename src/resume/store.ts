/**
 * Where checkpoints live: a small key-value store of strings (a
 * checkpoint's JSON), each method sync or async. `webStorage` (a page's
 * `localStorage` or `sessionStorage`), `fileStore` (Node, from
 * `pollite/resume/node`) and `memoryStore` (tests) are pollite's; a store
 * of your own (IndexedDB, Redis, a database row) is three functions.
 * What it gives back is read as untrusted input (see `readCheckpoint`).
 */
export interface CheckpointStore {
  /** The text saved under `key`, or `null`/`undefined` when there is none. */
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  /** Saves `value` under `key`, replacing what was there; a later `get` must see it whole or not at all. */
  set(key: string, value: string): void | Promise<void>;
  /** Removes what is saved under `key`; nothing when there is none. */
  delete(key: string): void | Promise<void>;
}
