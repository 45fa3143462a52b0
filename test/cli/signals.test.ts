import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { sendJson, startServer, type Handler, type TestServer } from '../helpers/server.js';
import { ensureBin, spawnCli } from './helpers/run-cli.js';

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

describe('Ctrl-C', { timeout: 60_000 }, () => {
  it('aborts the request in flight and exits 130 within 200 ms', async () => {
    let aborted = false;
    const s = await serve((req) => {
      // Never answers; notes when the client gives up on the request.
      req.socket.on('close', () => (aborted = true));
    });
    const { child, done } = spawnCli([s.url, '-u', 'status=done']);
    await until(() => s.requests.length === 1);
    const sent = performance.now();
    child.kill('SIGINT');
    const run = await done;
    const ms = performance.now() - sent;
    expect(run.code).toBe(130);
    expect(ms).toBeLessThan(200);
    await until(() => aborted, 5000);
    expect(run.stderr).toMatch(/^pollite: interrupted\npollite: 1 request, 0 × 304, 0 retries, 0 B received in \d+\.\ds\n$/);
  });

  it('ends a wait between polls at once, exiting 130', async () => {
    const s = await serve((_req, res) => sendJson(res, 200, { status: 'running' }));
    const { child, done } = spawnCli([s.url, '-u', 'status=done', '--interval', '1h']);
    await until(() => s.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const sent = performance.now();
    child.kill('SIGINT');
    const run = await done;
    expect(run.code).toBe(130);
    expect(performance.now() - sent).toBeLessThan(200);
    expect(s.requests).toHaveLength(1);
  });

  it('SIGTERM exits 143', async () => {
    const s = await serve(() => undefined);
    const { child, done } = spawnCli([s.url]);
    await until(() => s.requests.length === 1);
    child.kill('SIGTERM');
    expect((await done).code).toBe(143);
  });
});
