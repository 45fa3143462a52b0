import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterStatus } from '../../src/cluster/index.js';
import { poll, type PollEvent } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { redisForTests } from './helpers/clusters.js';
import { delay, until } from './helpers/processes.js';

// cluster.share() in one process: two clusters stand for two processes
// (each has its own jobs and lease token). The election across real
// processes, takeovers and SIGKILL are in share-processes.test.ts.

const { run, redis, cluster } = redisForTests();

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Job {
  n: number;
  secret?: string;
  blob?: string;
}

/** An API whose job answers {n, secret, blob?}, counting; `big` makes every body carry a 2 kB blob. */
async function counting(big = false): Promise<TestServer> {
  let n = 0;
  return startServer((_req, res) => sendJson(res, 200, { n: ++n, secret: 'hush', ...(big ? { blob: 'x'.repeat(2000) } : {}) }));
}

const roles = (events: PollEvent[]): string[] => events.flatMap((e) => (e.type === 'share' ? [e.role] : []));

describe.skipIf(!run)('cluster.share() options and callers', () => {
  it('callers of one job in one process share its part: one request per interval for all, each with its own isDone; a joiner is told the role', async () => {
    server = await counting();
    const { cluster: c } = await cluster();
    const seen: number[][] = [[], [], []];
    const events: PollEvent[][] = [[], [], []];
    const url = `${server.url}/job`;
    const results = [2, 3, 4].map((last, i) =>
      poll<Job>(url, { interval: 150, use: [c.share()], isDone: (t) => t.n >= last, onUpdate: (t) => void seen[i]!.push(t.n), onEvent: (e) => events[i]!.push(e) }),
    );
    expect((await Promise.all(results)).map((t) => t.n)).toEqual([2, 3, 4]);
    expect(server.requests).toHaveLength(4);
    expect(seen).toEqual([
      [1, 2],
      [1, 2, 3],
      [1, 2, 3, 4],
    ]);
    expect(events.map(roles)).toEqual([['leader'], ['leader'], ['leader']]);
  });

  it('the leader finishes (its callers are done): the final body reaches the other process first; it takes over one interval later', async () => {
    server = await counting();
    const [a, b] = [await cluster(), await cluster()];
    const url = `${server.url}/job`;
    const first = poll<Job>(url, { interval: 300, use: [a.cluster.share()], isDone: (t) => t.n >= 2 });
    await until(() => server!.requests.length === 1, 'the first request');
    const got: number[] = [];
    const events: PollEvent[] = [];
    const second = poll<Job>(url, { interval: 300, use: [b.cluster.share()], isDone: (t) => t.n >= 4, onUpdate: (t) => void got.push(t.n), onEvent: (e) => events.push(e) });
    expect((await first).n).toBe(2);
    expect((await second).n).toBe(4);
    expect(got).toEqual([1, 2, 3, 4]);
    expect(roles(events)).toEqual(['follower', 'leader']);
    const gaps = server.requests.slice(1).map((r, i) => r.at - server!.requests[i]!.at);
    expect(gaps.every((gap) => gap >= 300 - 5)).toBe(true);
  });

  it('publish: false: nothing is published or kept, the other process gets no body but stands by; select and maxBytes limit what is published', async () => {
    server = await counting(true);
    const url = `${server.url}/job`;
    const [a, b] = [await cluster(), await cluster()];
    const silent = { interval: 100, use: [a.cluster.share({ publish: false })], isDone: () => false };
    const stop = new AbortController();
    const lead = poll<Job>(url, { ...silent, signal: stop.signal });
    await until(() => server!.requests.length === 1, 'the first request');
    const heard: Job[] = [];
    const events: PollEvent[] = [];
    const follow = poll<Job>(url, { ...silent, use: [b.cluster.share({ publish: false })], signal: stop.signal, onUpdate: (t) => void heard.push(t), onEvent: (e) => events.push(e) });
    await until(() => server!.requests.length >= 4, 'three more requests');
    expect(heard).toEqual([]);
    expect(roles(events)).toEqual(['follower']);
    const { createClient } = await import('redis');
    const admin = await createClient({ url: redis().url }).on('error', () => undefined).connect();
    const keys = await admin.keys(`${a.prefix}*`);
    expect(keys.filter((key) => key.endsWith(':lease'))).toHaveLength(1);
    expect(keys.filter((key) => key.endsWith(':last'))).toEqual([]);
    stop.abort();
    await Promise.allSettled([lead, follow]);

    // select: the others get what it picks; maxBytes: a body whose JSON is larger stays with the leader.
    const statuses: ClusterStatus[] = [];
    const [c, d] = [await cluster({ onStatus: (s) => statuses.push(s) }), await cluster()];
    const picked: unknown[] = [];
    const small: unknown[] = [];
    const pick = (body: unknown): unknown => ({ n: (body as Job).n });
    const share = { interval: 100, isDone: (t: Job) => t.n >= 9 };
    const selected = poll<Job>(`${url}?select`, { ...share, use: [c.cluster.share({ select: pick })] });
    await delay(50);
    await Promise.all([selected, poll<Job>(`${url}?select`, { ...share, use: [d.cluster.share({ select: pick })], onUpdate: (t) => void picked.push(t) })]);
    expect(picked.length).toBeGreaterThan(0);
    expect(picked.every((t) => JSON.stringify(t) === JSON.stringify({ n: (t as Job).n }))).toBe(true);
    const capped = poll<Job>(`${url}?capped`, { interval: 100, isDone: () => false, use: [c.cluster.share({ maxBytes: 1000 })], signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    await delay(50);
    const other = poll<Job>(`${url}?capped`, { interval: 100, isDone: () => false, use: [d.cluster.share({ maxBytes: 1000 })], signal: AbortSignal.timeout(1000), onUpdate: (t) => void small.push(t) }).catch(() => undefined);
    await Promise.all([capped, other]);
    expect(small).toEqual([]);
    expect(statuses.filter((s) => s.type === 'unpublished')[0]).toEqual({ type: 'unpublished', reason: 'too-large', bytes: expect.any(Number) as number });
    await admin.quit();
  });

  it("a caller's signal and timeout settle it alone; the others go on", async () => {
    server = await counting();
    const { cluster: c } = await cluster();
    const url = `${server.url}/job`;
    const stop = new AbortController();
    const share = { interval: 100, use: [c.share()] };
    const aborted = poll<Job>(url, { ...share, isDone: () => false, signal: stop.signal });
    const timed = poll<Job>(url, { ...share, isDone: () => false, timeout: 250 });
    const done = poll<Job>(url, { ...share, isDone: (t) => t.n >= 5 });
    stop.abort(new Error('mine'));
    await expect(aborted).rejects.toThrow('mine');
    await expect(timed).rejects.toMatchObject({ name: 'TimeoutError' });
    expect((await done).n).toBe(5);
  });
});
