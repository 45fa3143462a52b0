import { refuse } from '../options/check.js';
import type { CheckpointStore } from './store.js';

/** The part of the Web Storage API (`localStorage`, `sessionStorage`) {@link webStorage} uses. */
export interface WebStorageLike {
  /** The value under `key`, or null. */
  getItem(key: string): string | null;
  /** Sets the value under `key`. */
  setItem(key: string, value: string): void;
  /** Removes the value under `key`. */
  removeItem(key: string): void;
}

/**
 * A {@link CheckpointStore} over a page's `localStorage` (kept across
 * reloads and restarts of the browser, per origin, until deleted: a
 * checkpoint is deleted when its call ends) or `sessionStorage` (kept
 * across reloads of this tab only, gone when the tab closes). Each key is
 * saved as `prefix + key`. Both are readable by any script of the origin:
 * a checkpoint holds no credential, but `data: true` keeps the last body
 * there too.
 *
 * @example
 * const store = webStorage(localStorage);
 */
export function webStorage(storage: WebStorageLike, prefix = 'pollite:'): CheckpointStore {
  if (typeof storage?.getItem !== 'function' || typeof storage.setItem !== 'function' || typeof storage.removeItem !== 'function') {
    refuse('storage', 'a Storage (localStorage or sessionStorage)');
  }
  if (typeof prefix !== 'string') refuse('prefix', 'a string');
  return {
    get: (key) => storage.getItem(prefix + key),
    set: (key, value) => storage.setItem(prefix + key, value),
    delete: (key) => storage.removeItem(prefix + key),
  };
}
