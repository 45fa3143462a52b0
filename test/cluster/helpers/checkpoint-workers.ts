import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { CheckpointJob } from './checkpoint-worker.js';

let bundled: Promise<string> | undefined;

/** ./checkpoint-worker.ts bundled once per test file with esbuild (pollite's source and both Redis clients). */
function workerBundle(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pollite-checkpoint-worker-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const outfile = join(dir, 'worker.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('./checkpoint-worker.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile,
      logLevel: 'warning',
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    });
    return outfile;
  })();
  return bundled;
}

/** What a checkpoint worker reported (`at`: epoch ms, when it sent it). */
export type CheckpointReport = { at: number; key?: string } & (
  | { type: 'ready' }
  | { type: 'claimed' }
  | { type: 'event'; event: { type: string; delay?: number } }
  | { type: 'settled'; outcome: 'resolved' | 'rejected'; value: unknown }
);

/** A forked checkpoint worker. */
export interface CheckpointWorker {
  reports: CheckpointReport[];
  /** Resolves with the first report `match` accepts (rejects if the worker exits first). */
  next(match: (report: CheckpointReport) => boolean, what?: string): Promise<CheckpointReport>;
  /** SIGKILL: no goodbye, no release, no renewal. */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => live.forEach((child) => child.kill('SIGKILL')));

/** Forks a worker doing `job`; resolves once it is connected. */
export async function startCheckpointWorker(job: CheckpointJob): Promise<CheckpointWorker> {
  const child = fork(await workerBundle(), [JSON.stringify(job)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  live.add(child);
  const reports: CheckpointReport[] = [];
  const waiting = new Set<() => void>();
  child.on('message', (report: CheckpointReport) => {
    reports.push(report);
    waiting.forEach((check) => check());
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (live.delete(child), resolve(code))));
  const next = (match: (report: CheckpointReport) => boolean, what = 'a report'): Promise<CheckpointReport> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = reports.find(match);
        if (found && waiting.delete(check)) resolve(found);
      };
      waiting.add(check);
      check();
      void exited.then(() => {
        if (waiting.delete(check)) reject(new Error(`the worker exited before ${what}: ${JSON.stringify(reports)}`));
      });
    });
  await next((r) => r.type === 'ready', 'it was ready');
  return {
    reports,
    next,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Kills every checkpoint worker still running (afterEach). */
export async function killCheckpointWorkers(): Promise<void> {
  await Promise.all(
    [...live].map(async (child) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }),
  );
}
