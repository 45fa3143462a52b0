import type { CheckpointStore } from './store.js';

/** A {@link CheckpointStore} in a `Map`: what it keeps lives as long as the store object (tests, a process that only needs to survive an abort). */
export interface MemoryStore extends CheckpointStore {
  /** What is saved, by key: to read or tamper with in a test. */
  readonly entries: Map<string, string>;
}

/**
 * A {@link CheckpointStore} in memory: gone with the process or page, so
 * it survives neither a reload nor a crash. For tests, and for a call
 * aborted and resumed in the same realm.
 *
 * @example
 * const store = memoryStore();
 * await poll('/api/jobs/42', { isDone, use: [checkpoint({ store, key: 'job-42' })] });
 */
export function memoryStore(): MemoryStore {
  const entries = new Map<string, string>();
  return {
    entries,
    get: (key) => entries.get(key),
    set: (key, value) => void entries.set(key, value),
    delete: (key) => void entries.delete(key),
  };
}
