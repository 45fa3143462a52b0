import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { sendJson, startServer, type Handler, type TestServer } from '../helpers/server.js';
import { ensureBin, spawnCli, type CliRun } from './helpers/run-cli.js';

beforeAll(() => ensureBin());

const serve = async (handler: Handler): Promise<TestServer> => {
  const server = await startServer(handler);
  onTestFinished(() => server.close());
  return server;
};

const until = async (check: () => boolean, ms = 30_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/**
 * Starts the bin, waits until the server has seen its first request (plus
 * `settle` ms), sends `signal` and measures from the kill to the exit.
 */
async function interrupt(server: TestServer, args: string[], signal: NodeJS.Signals, settle = 0): Promise<CliRun & { latency: number }> {
  const { child, done } = spawnCli([server.url, ...args]);
  await until(() => server.requests.length >= 1);
  if (settle) await new Promise((resolve) => setTimeout(resolve, settle));
  const sent = performance.now();
  child.kill(signal);
  const run = await done;
  return { ...run, latency: run.exitedAt - sent };
}

/**
 * How long any Node process takes from SIGINT to exit on this machine right
 * now: a bare `node` that exits on SIGINT, timed the same way.
 */
async function bareNodeLatency(): Promise<number> {
  const child = spawn(process.execPath, ['-e', "process.on('SIGINT', () => process.exit(130)); setInterval(() => {}, 1000); process.stdout.write('ready')"], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const exited = new Promise<number>((resolve) => child.once('exit', () => resolve(performance.now())));
  const sent = performance.now();
  child.kill('SIGINT');
  return (await exited) - sent;
}

/**
 * pollite's budget is 200 ms from Ctrl-C to exit, on top of what the machine
 * costs any Node process (about 20 ms idle; 55-85 ms at a load average of 19
 * on 2 cores, and more while other tests spawn processes). Each try measures
 * that floor right before pollite; a broken implementation (one that waits
 * for the answer or the next poll) misses the budget every time, so up to
 * five tries are given.
 */
async function fastest(attempt: () => Promise<CliRun & { latency: number }>): Promise<CliRun & { latency: number; floor: number }> {
  let best: (CliRun & { latency: number; floor: number }) | undefined;
  for (let i = 0; i < 5 && (best === undefined || best.latency - best.floor >= 200); i += 1) {
    const floor = await bareNodeLatency();
    const next = { ...(await attempt()), floor };
    if (best === undefined || next.latency - next.floor < best.latency - best.floor) best = next;
  }
  return best!;
}

describe('Ctrl-C', { timeout: 120_000 }, () => {
  it('aborts the request in flight and exits 130 within 200 ms (beyond what any node process takes)', async () => {
    const run = await fastest(async () => {
      let aborted = false;
      // Never answers; notes when the client drops the request.
      const s = await serve((req) => void req.socket.on('close', () => (aborted = true)));
      const result = await interrupt(s, ['-u', 'status=done'], 'SIGINT');
      await until(() => aborted, 5000);
      expect(s.requests).toHaveLength(1);
      return result;
    });
    expect(run.code).toBe(130);
    expect(run.latency - run.floor).toBeLessThan(200);
    expect(run.stderr).toMatch(/^pollite: interrupted\npollite: 1 request, 0 × 304, 0 retries, 0 B received in \d+\.\ds\n$/);
  });

  it('ends the wait between polls at once, exiting 130 within 200 ms (beyond what any node process takes)', async () => {
    const run = await fastest(async () => {
      const s = await serve((_req, res) => sendJson(res, 200, { status: 'running' }));
      const result = await interrupt(s, ['-u', 'status=done', '--interval', '1h'], 'SIGINT', 100);
      expect(s.requests).toHaveLength(1);
      return result;
    });
    expect(run.code).toBe(130);
    expect(run.latency - run.floor).toBeLessThan(200);
  });

  it('SIGTERM exits 143', async () => {
    const s = await serve(() => undefined);
    expect((await interrupt(s, [], 'SIGTERM')).code).toBe(143);
  });
});
