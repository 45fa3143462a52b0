import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import type { CheckpointStore } from '../resume/index.js';

const missing = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'ENOENT';

/**
 * `--state FILE`: a store of one checkpoint, the file itself (the key is the
 * command's own). Written beside it and renamed over it, flushed first, so a
 * run killed mid-write leaves the old state or the new one; mode 0600.
 */
export function stateFile(path: string): CheckpointStore {
  return {
    async get() {
      try {
        return await readFile(path, 'utf8');
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async set(_key, value) {
      const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        const handle = await open(temporary, 'wx', 0o600);
        try {
          await handle.writeFile(value, 'utf8');
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async delete() {
      await rm(path, { force: true });
    },
  };
}
