import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

let bundled: Promise<string> | undefined;

/** The worker, bundled once with esbuild: a process starts in a fraction of a second, not the seconds tsx takes on two cores. */
function workerBundle(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pollite-resume-worker-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const outfile = join(dir, 'worker.mjs');
    await build({ entryPoints: [fileURLToPath(new URL('./operation-worker.ts', import.meta.url))], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'warning' });
    return outfile;
  })();
  return bundled;
}

/** What a worker reported. */
export type Report = { type: 'event'; event: { type: string; delay?: number; at?: number }; at: number } | { type: 'settled'; outcome: 'resolved' | 'rejected'; value: unknown };

/** A forked worker polling one operation, and what it reported so far. */
export interface Worker {
  reports: Report[];
  /** Resolves with the first report `match` accepts. */
  next(match: (report: Report) => boolean): Promise<Report>;
  /** SIGKILL: no goodbye, no finally, no flush. */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => live.forEach((child) => child.kill('SIGKILL')));

/** Forks a worker that polls the operation `start` under the checkpoint `key` of the fileStore in `dir`. */
export async function startWorker(start: string, dir: string, key: string): Promise<Worker> {
  const child = fork(await workerBundle(), [start, dir, key], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  live.add(child);
  const reports: Report[] = [];
  const waiting = new Set<() => void>();
  child.on('message', (report: Report) => {
    reports.push(report);
    waiting.forEach((check) => check());
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (live.delete(child), resolve(code))));
  return {
    reports,
    exited,
    next: (match) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const found = reports.find(match);
          if (found) {
            waiting.delete(check);
            resolve(found);
          }
        };
        waiting.add(check);
        check();
        void exited.then(() => {
          if (waiting.delete(check)) reject(new Error(`the worker exited before reporting what was awaited: ${JSON.stringify(reports)}`));
        });
      }),
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
