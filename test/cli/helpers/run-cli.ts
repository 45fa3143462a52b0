import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/**
 * The real bin, as `npm run build` writes it; `POLLITE_TEST_BIN` runs the
 * tests against another build instead (an older one, to see a regression
 * test fail without its fix), which is then never rebuilt.
 */
export const BIN = process.env.POLLITE_TEST_BIN ?? join(root, 'dist', 'cli.js');

/** What a finished run of the bin left behind. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout exactly as the bin wrote it, byte for byte. */
  stdoutBytes: Buffer;
  /** stderr exactly as the bin wrote it. */
  stderrBytes: Buffer;
  /** The largest resident set size seen while it ran, bytes (0 where /proc is not there); see `sampleRss`. */
  peakRss: number;
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
  if (process.env.POLLITE_TEST_BIN !== undefined) return;
  const sources = newest(join(root, 'src', 'cli'));
  if ([BIN, SIMULATE_BUNDLE].every((file) => existsSync(file) && statSync(file).mtimeMs >= sources)) return;
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build-cli.mjs')], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`building dist/cli.js failed:\n${build.stderr}`);
}

/** How a run of the bin is started. */
export interface SpawnOptions {
  env?: Record<string, string | undefined>;
  /** A copy of the bin to run instead of dist/cli.js. */
  bin?: string;
  /** Flags for node itself, before the bin: `--max-old-space-size=64`, `--expose-gc`. */
  nodeArgs?: readonly string[];
  /** Sample the child's resident set size every 10 ms (Linux /proc), and SIGKILL it past this many bytes. */
  killAboveRss?: number;
}

/** The resident set size of `pid` in bytes, from /proc; 0 when it cannot be read. */
function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return 0;
  }
}

/** Starts the bin (or a copy of it at `bin`) with `args`; stdout and stderr are pipes (not a terminal). */
export function spawnCli(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  bin: string = BIN,
  options: Pick<SpawnOptions, 'nodeArgs' | 'killAboveRss'> = {},
): { child: ChildProcess; done: Promise<CliRun> } {
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), bin, ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  let peakRss = 0;
  const sampler =
    options.killAboveRss === undefined
      ? undefined
      : setInterval(() => {
          peakRss = Math.max(peakRss, rssOf(child.pid!));
          if (peakRss > options.killAboveRss!) child.kill('SIGKILL');
        }, 10);
  let exitedAt = 0;
  child.on('exit', () => {
    exitedAt = performance.now();
    clearInterval(sampler);
  });
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const [stdoutBytes, stderrBytes] = [Buffer.concat(stdout), Buffer.concat(stderr)];
      resolve({
        code,
        signal,
        stdout: stdoutBytes.toString('utf8'),
        stderr: stderrBytes.toString('utf8'),
        stdoutBytes,
        stderrBytes,
        peakRss,
        ms: exitedAt - started,
        exitedAt,
      });
    });
  });
  return { child, done };
}

/** Runs the bin to the end; kills it if it outlives `timeoutMs`, so a hang fails the test instead of the suite. */
export async function runCli(
  args: readonly string[],
  options: SpawnOptions & { timeoutMs?: number } = {},
): Promise<CliRun> {
  const { child, done } = spawnCli(args, options.env, options.bin, options);
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
