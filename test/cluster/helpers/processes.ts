import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { PollEvent } from '../../../src/index.js';
import type { WorkerJob, WorkerReport } from './worker.js';

let bundled: Promise<string> | undefined;

/**
 * The worker script, bundled once per test file with esbuild (pollite's
 * source and both Redis clients in one ESM file): a process then starts in
 * half a second, not the four that tsx takes on two cores.
 */
function workerBundle(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pollite-cluster-worker-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const outfile = join(dir, 'worker.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('./worker.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile,
      logLevel: 'warning',
      // The clients are CommonJS, and call require for Node's built-ins.
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    });
    return outfile;
  })();
  return bundled;
}

/** A real Node process polling through pollite/cluster, and everything it reported. */
export interface Worker {
  name: string;
  reports: WorkerReport[];
  events(): PollEvent[];
  /** Requests it sent (its `request` events). */
  requests(): number;
  /** Bodies its callers got, by `n`. */
  updates(): number[];
  /** How late its timers fired at most, so far: a busy machine's share of any stall. */
  lag(): number;
  /** Its latest `share` role. */
  role(): 'leader' | 'follower' | 'local' | undefined;
  /**
   * Aborts its poll (its process stays up). `inWait`: in a wait only (at once if it is in one, else at its next), so
   * that nothing is in flight: every request it announced reached the server and was answered. For a process that
   * polls (a leader): a follower has no waits of its own.
   */
  stop(options?: { inWait?: boolean }): void;
  /** Resolves once its poll has settled (stopped, say): every report it sent before has come. */
  settled(): Promise<void>;
  /** A budget worker's calls: resolves once it made `n` more (see WorkerJob.budget). */
  calls(n: number): Promise<void>;
  /** Kills the process (SIGKILL: no goodbye). */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

const live = new Set<ChildProcess>();

/** Forks a worker polling `job`; resolves once it is connected and polling. */
export async function startWorker(name: string, job: WorkerJob): Promise<Worker> {
  const child = fork(await workerBundle(), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  live.add(child);
  const reports: WorkerReport[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (live.delete(child), resolve(code))));
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (report: WorkerReport) => {
      reports.push(report);
      if (report.type === 'ready') resolve();
    });
    void exited.then(() => reject(new Error(`worker ${name} exited before it was ready`)));
  });
  child.send({ type: 'poll', job });
  await ready;
  const events = (): PollEvent[] => reports.flatMap((r) => (r.type === 'event' ? [r.event] : []));
  return {
    name,
    reports,
    events,
    requests: () => events().filter((e) => e.type === 'request').length,
    updates: () => reports.flatMap((r) => (r.type === 'update' ? [(r.data as { n: number }).n] : [])),
    lag: () => reports.at(-1)?.lag ?? 0,
    role: () => events().reduce<'leader' | 'follower' | 'local' | undefined>((role, e) => (e.type === 'share' ? e.role : role), undefined),
    stop: ({ inWait = false } = {}) => void child.send({ type: 'stop', inWait }),
    settled: () => until(() => reports.some((r) => r.type === 'settled'), `${name}'s poll settled`),
    calls: (n) => {
      const done = reports.filter((r) => r.type === 'calls').length;
      child.send({ type: 'calls', n });
      return until(() => reports.filter((r) => r.type === 'calls').length > done, `${name}'s ${n} calls`, 30_000);
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    exited,
  };
}

/** What the server and each worker had counted at one moment: see {@link quietMoment}. */
export interface Counts {
  /** Requests the server had seen. */
  server: number;
  /** Each worker's requests (its `request` events), in the order of the workers given. */
  requests: number[];
  /** How many bodies each worker had got. */
  updates: number[];
  /** The `n` of the last body each worker had got. */
  latest: Array<number | undefined>;
}

/**
 * Waits for a moment nothing is in flight between `leader` and the server, and returns what each had counted
 * then. Counts taken at any other moment race, since the two travel apart: a request a process announced over
 * IPC may not have reached the server yet, and one the server saw may not be announced yet. The moment: the
 * leader's last event is the wait after an answer (every request it announced before was answered, so the
 * server saw it), and that wait ends more than `margin` ms from now (its `at` is on this machine's clock, and
 * its timer starts after the event: its next request cannot have gone out). With `bodies`, every other worker
 * of `workers` also has the body the leader got last (they are followers of its job).
 */
export async function quietMoment(
  server: { requests: unknown[] },
  leader: Worker,
  workers: Worker[],
  { bodies = true, margin = 20, within = 15_000 }: { bodies?: boolean; margin?: number; within?: number } = {},
): Promise<Counts> {
  let counts: Counts | undefined;
  const quiet = (): boolean => {
    const last = leader.events().at(-1);
    if (last?.type !== 'wait' || !(Date.now() < last.at - margin)) return false;
    const latest = workers.map((w) => w.updates().at(-1));
    if (bodies && latest.some((n) => n !== leader.updates().at(-1))) return false;
    counts = { server: server.requests.length, requests: workers.map((w) => w.requests()), updates: workers.map((w) => w.updates().length), latest };
    return true;
  };
  await until(quiet, `a moment nothing is in flight (${leader.name} waiting${bodies ? ', every process with its last body' : ''})`, within);
  return counts!;
}

/** Kills every worker still running (afterEach). */
export async function killWorkers(): Promise<void> {
  await Promise.all(
    [...live].map(async (child) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }),
  );
}

/** Waits until `check` holds, polling every 20 ms; fails with `what` after `within` ms. */
export async function until(check: () => boolean, what: string, within = 15_000): Promise<void> {
  const deadline = Date.now() + within;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
