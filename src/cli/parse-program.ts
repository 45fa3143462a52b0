import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { UsageError } from './usage-error.js';

/**
 * Parses `argv` with `program`, writing help and version to `io` instead of
 * exiting. Returns false when help or the version was printed; throws a
 * {@link UsageError} with commander's message (without its `error: `) otherwise.
 */
export function parseProgram(program: Command, argv: readonly string[], io: Pick<CliIo, 'stdout' | 'stderr'>): boolean {
  let usageError: string | undefined;
  program.exitOverride().configureOutput({
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
    outputError: (text) => (usageError = text.replace(/^error: /, '').trim()),
  });
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    if ((error as { exitCode?: unknown }).exitCode === 0) return false;
    throw new UsageError(usageError ?? (error as Error).message);
  }
  return true;
}
