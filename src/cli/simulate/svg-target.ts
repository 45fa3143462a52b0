import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../usage-error.js';

const code = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;

/**
 * Checks, before a simulation runs, that `--svg <file>` can be written: its
 * directory exists and is writable, and the file, if it exists, is a
 * writable file. Throws a {@link UsageError} naming `--svg` otherwise, so a
 * typo costs nothing rather than the results of a long run.
 */
export async function checkSvgTarget(file: string): Promise<void> {
  if (file.trim() === '') throw new UsageError('--svg expects a file name');
  const dir = dirname(resolve(file));
  const info = await stat(dir).catch((error: unknown) => {
    throw new UsageError(`--svg ${file}: ${code(error) === 'ENOENT' ? `no directory ${dir}` : `cannot reach ${dir} (${code(error)})`}`);
  });
  if (!info.isDirectory()) throw new UsageError(`--svg ${file}: ${dir} is not a directory`);
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`--svg ${file}: is a directory`);
  await access(existing ? file : dir, constants.W_OK).catch(() => {
    throw new UsageError(`--svg ${file}: ${existing ? 'the file' : `the directory ${dir}`} is not writable`);
  });
}
