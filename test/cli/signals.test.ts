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
 * The 200 ms budget is real, but a shared machine can stall any process for
 * longer (a bare `node` that exits on SIGINT took 55-85 ms at a load average
 * of 19 on 2 cores); a broken implementation (one that waits for the answer or
 * the next poll) misses it every time, so up to five tries are given.
 */
async function fastest(attempt: () => Promise<CliRun & { latency: number }>): Promise<CliRun & { latency: number }> {
  let best = await attempt();
  for (let i = 1; i < 5 && best.latency >= 200; i += 1) {
    const next = await attempt();
    if (next.latency < best.latency) best = next;
  }
  return best;
}

describe('Ctrl-C', { timeout: 120_000 }, () => {
  it('aborts the request in flight and exits 130 within 200 ms', async () => {
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
    expect(run.latency).toBeLessThan(200);
    expect(run.stderr).toMatch(/^pollite: interrupted\npollite: 1 request, 0 × 304, 0 retries, 0 B received in \d+\.\ds\n$/);
  });

  it('ends the wait between polls at once, exiting 130 within 200 ms', async () => {
    const run = await fastest(async () => {
      const s = await serve((_req, res) => sendJson(res, 200, { status: 'running' }));
      const result = await interrupt(s, ['-u', 'status=done', '--interval', '1h'], 'SIGINT', 100);
      expect(s.requests).toHaveLength(1);
      return result;
    });
    expect(run.code).toBe(130);
    expect(run.latency).toBeLessThan(200);
  });

  it('SIGTERM exits 143', async () => {
    const s = await serve(() => undefined);
    expect((await interrupt(s, [], 'SIGTERM')).code).toBe(143);
  });
});
