import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { poll } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { redisForTests } from './helpers/clusters.js';
import { delay, until } from './helpers/processes.js';

// A finished poll's last body stays in Redis a while (for the followers of
// its loop that missed its message). It must never answer a poll that
// started after that loop ended: such a poll asks the server itself, unless
// it says how old a body it takes (`maxAge`). Two clusters stand for two
// processes; a poll that ends in one and starts again in either is the
// issue's repro (the API said `running` from the second poll on, yet polls
// 2 to 5 resolved from the first one's body, with no request).

const { run, redis, cluster } = redisForTests();

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An API whose job answers `{ n }`, counting its requests. */
async function counting(): Promise<TestServer> {
  let n = 0;
  return startServer((_req, res) => sendJson(res, 200, { n: ++n }));
}

const once = { interval: 100, isDone: (): boolean => true };

describe.skipIf(!run)('a finished poll’s body', () => {
  it('never answers a later poll of the same request, in this process or another, however soon after: each asks the server', async () => {
    server = await counting();
    const url = `${server.url}/job`;
    const [a, b] = [await cluster(), await cluster()];
    const got: number[] = [];
    for (let k = 0; k < 5; k++) {
      const { cluster: c } = k % 2 === 0 ? a : b;
      got.push((await poll<{ n: number }>(url, { ...once, use: [c.share()] })).n);
      expect(server.requests).toHaveLength(k + 1);
      await delay(50);
    }
    expect(got).toEqual([1, 2, 3, 4, 5]);
  });

  it('nor a poll that joins a new loop before its first request: it gets that loop’s first body', async () => {
    server = await counting();
    const url = `${server.url}/job`;
    const [a, b, c] = [await cluster(), await cluster(), await cluster()];
    expect((await poll<{ n: number }>(url, { ...once, interval: 400, use: [a.cluster.share()] })).n).toBe(1);
    // b leads a new loop; its first request waits until one interval after a's last.
    const second = poll<{ n: number }>(url, { ...once, interval: 400, use: [b.cluster.share()] });
    await delay(100);
    expect(server.requests).toHaveLength(1);
    const third = poll<{ n: number }>(url, { ...once, interval: 400, use: [c.cluster.share()] });
    expect([(await second).n, (await third).n]).toEqual([2, 2]);
    expect(server.requests).toHaveLength(2);
  });

  it('the kept body expires twice the lease after its loop ended, however many new loops take the lease meanwhile', async () => {
    server = await counting();
    const url = `${server.url}/job`;
    const { cluster: c, prefix } = await cluster();
    await poll<{ n: number }>(url, { ...once, use: [c.share()] });
    const admin = await createClient({ url: redis().url }).on('error', () => undefined).connect();
    try {
      const [last] = await admin.keys(`${prefix}job:*:last`);
      expect(last).toBeDefined();
      const ended = Date.now();
      // Polls that publish nothing, one after the other, each taking the lease, for longer than twice the lease (1800 ms).
      while (Date.now() < ended + 2000) await poll<{ n: number }>(url, { ...once, use: [c.share({ publish: false })] });
      expect(await admin.exists(last!)).toBe(0);
    } finally {
      await admin.quit();
    }
  });

  it('maxAge: a poll that says how old a body it takes is answered from a finished loop’s body within it, and only then', async () => {
    server = await counting();
    const url = `${server.url}/job`;
    const [a, b] = [await cluster(), await cluster()];
    await poll<{ n: number }>(url, { ...once, use: [a.cluster.share()] });
    expect((await poll<{ n: number }>(url, { ...once, use: [b.cluster.share({ maxAge: 60_000 })] })).n).toBe(1);
    expect(server.requests).toHaveLength(1);
    await delay(150);
    expect((await poll<{ n: number }>(url, { ...once, use: [b.cluster.share({ maxAge: 100 })] })).n).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('a follower of the loop that ended still takes its last body (it started before the end)', async () => {
    server = await counting();
    const url = `${server.url}/job`;
    const [a, b] = [await cluster(), await cluster()];
    const first = poll<{ n: number }>(url, { interval: 200, use: [a.cluster.share()], isDone: (t) => t.n >= 2 });
    await until(() => server!.requests.length === 1, 'the first request');
    const got: number[] = [];
    const second = poll<{ n: number }>(url, { interval: 200, use: [b.cluster.share()], isDone: (t) => t.n >= 2, onUpdate: (t) => void got.push(t.n) });
    expect([(await first).n, (await second).n]).toEqual([2, 2]);
    expect(got).toEqual([1, 2]);
    expect(server.requests).toHaveLength(2);
  });
});
