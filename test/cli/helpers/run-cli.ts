import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/** The real bin, as `npm run build` writes it. */
export const BIN = join(root, 'dist', 'cli.js');

/** What a finished run of the bin left behind. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** ms from spawn to exit. */
  ms: number;
  /** `performance.now()` when the process exited (before its pipes closed). */
  exitedAt: number;
}

const newest = (dir: string): number =>
  Math.max(...readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => statSync(join(e.parentPath, e.name)).mtimeMs));

/** `pollite simulate`, bundled beside the bin and loaded by it only when asked for. */
export const SIMULATE_BUNDLE = join(root, 'dist', 'cli', 'simulate.js');

/**
 * Makes sure dist/cli.js and dist/cli/simulate.js exist and are newer than
 * src/cli (re-bundling both if not: a fraction of a second). The core they
 * import must have been built.
 */
export function ensureBin(): void {
  for (const entry of ['index.js', 'simulator/index.js']) {
    if (!existsSync(join(root, 'dist', entry))) throw new Error(`dist/${entry} is missing: run \`npm run build\` first`);
  }
  const sources = newest(join(root, 'src', 'cli'));
  if ([BIN, SIMULATE_BUNDLE].every((file) => existsSync(file) && statSync(file).mtimeMs >= sources)) return;
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build-cli.mjs')], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`building dist/cli.js failed:\n${build.stderr}`);
}

/** Starts the bin (or a copy of it at `bin`) with `args`; stdout and stderr are pipes (not a terminal). */
export function spawnCli(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  bin: string = BIN,
): { child: ChildProcess; done: Promise<CliRun> } {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let exitedAt = 0;
  child.on('exit', () => (exitedAt = performance.now()));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: exitedAt - started, exitedAt }));
  });
  return { child, done };
}

/** Runs the bin to the end; kills it if it outlives `timeoutMs`, so a hang fails the test instead of the suite. */
export async function runCli(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; timeoutMs?: number; bin?: string } = {},
): Promise<CliRun> {
  const { child, done } = spawnCli(args, options.env, options.bin);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  try {
    return await done;
  } finally {
    clearTimeout(timer);
  }
}

/** Any ANSI escape, carriage return or other C0/C1 control character except the newline. */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARACTERS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
