import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { refuse } from '../options/check.js';
import type { CheckpointStore } from './store.js';

/** The file of `key` in `dir`: its SHA-256, so no key can name a path outside `dir` (`../`), and no key is readable from the name. */
const fileOf = (dir: string, key: string): string => join(dir, `${createHash('sha256').update(key).digest('hex')}.json`);

const missing = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'ENOENT';

/**
 * A {@link CheckpointStore} of files in `dir` (made if missing), one per
 * key, named by the key's SHA-256: kept across crashes, restarts and
 * deploys that keep the directory, until the call ends and deletes it.
 * Each write goes to a temporary file in `dir`, is flushed to disk, and is
 * renamed over the old one, so a crash (or a power loss) mid-write leaves
 * the old checkpoint or the new one, never half of one. Give every process that may resume a call the same `dir`;
 * files are written with mode 0600 (the owner only).
 *
 * @example
 * import { fileStore } from 'pollite/resume/node';
 * const store = fileStore('.pollite');
 */
export function fileStore(dir: string): CheckpointStore {
  if (typeof dir !== 'string' || dir === '') refuse('dir', 'a directory path');
  let made: Promise<unknown> | undefined;
  return {
    get: (key) => readOrNone(fileOf(dir, key)),
    async set(key, value) {
      await (made ??= mkdir(dir, { recursive: true, mode: 0o700 }));
      await writeWhole(fileOf(dir, key), value);
    },
    delete: (key) => rm(fileOf(dir, key), { force: true }),
  };
}

/**
 * A {@link CheckpointStore} of one checkpoint, kept in the file `path`
 * itself whatever the key (the `pollite` command's `--state FILE`): written
 * as {@link fileStore} writes, whole or not at all, mode 0600.
 *
 * @example
 * import { fileAt } from 'pollite/resume/node';
 * const store = fileAt('./job.state');
 */
export function fileAt(path: string): CheckpointStore {
  if (typeof path !== 'string' || path === '') refuse('path', 'a file path');
  return {
    get: () => readOrNone(path),
    set: (_key, value) => writeWhole(path, value),
    delete: () => rm(path, { force: true }),
  };
}

/** The text of the file at `path`, or `undefined` when there is none. */
async function readOrNone(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}

/**
 * Writes `value` to `path` whole or not at all: to a temporary file beside
 * it, flushed to disk, then renamed over it, so a crash (or a power loss)
 * mid-write leaves the old text or the new one, never half of one.
 */
async function writeWhole(path: string, value: string): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(value, 'utf8');
      // On disk before it replaces the old one: a power loss then leaves one of the two whole, not an empty file.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
