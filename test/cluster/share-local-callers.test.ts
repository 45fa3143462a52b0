import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createCluster, type ClusterStatus } from '../../src/cluster/index.js';
import { HttpError, poll } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { until } from './helpers/processes.js';
import { scriptedRedis, type SentScript } from './share-local-redis.js';

// The callers of one shared job in this process (local-callers.ts) and
// what cluster.share() publishes of a body (cluster-share.ts), over a
// scripted ClusterRedis that makes this process the leader, polling a
// real node:http server.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const LEASE = 30_000;
function leader() {
  let stamp = 100;
  return scriptedRedis((sent: SentScript) => {
    if (sent.script === 'ACQUIRE') return [1, -2, '0', LEASE];
    if (sent.script === 'PUBLISH') return String((stamp += 1));
    return 1;
  });
}

/** An API whose job answers `body(n)` for its n-th request (from 1). */
async function answering(body: (n: number) => unknown = (n) => ({ n })): Promise<TestServer> {
  let n = 0;
  return startServer((_req, res) => sendJson(res, 200, body(++n)));
}

describe('the callers of one job in this process', () => {
  it('a caller whose onUpdate or onEvent throws is rejected with that error, alone; a joiner gets the latest body at once', async () => {
    server = await answering();
    const r = leader();
    const c = createCluster({ redis: r.redis, lease: LEASE });
    const url = `${server.url}/job`;
    const share = { interval: 30, use: [c.share()] };
    const updateFails = new Error('onUpdate failed');
    const eventFails = new Error('onEvent failed');
    const got: number[] = [];
    const done = poll<{ n: number }>(url, { ...share, onUpdate: (b) => void got.push(b.n), isDone: (b) => b.n >= 4 });
    const failing = poll<{ n: number }>(url, { ...share, isDone: () => false, onUpdate: (b) => {
      if (b.n === 2) throw updateFails;
    } });
    const noisy = poll<{ n: number }>(url, { ...share, isDone: () => false, onEvent: (e) => {
      if (e.type === 'request') throw eventFails;
    } });
    const settled = Promise.allSettled([failing, noisy]);
    expect(await settled).toEqual([
      { status: 'rejected', reason: updateFails },
      { status: 'rejected', reason: eventFails },
    ]);
    await until(() => got.length >= 2, 'two bodies', 2000);
    const joined: number[] = [];
    const late = poll<{ n: number }>(url, { ...share, onUpdate: (b) => void joined.push(b.n), isDone: () => true });
    expect((await late).n).toBe(got.at(-1));
    expect(joined).toEqual([got.at(-1)]);
    expect((await done).n).toBe(4);
    expect(got).toEqual([1, 2, 3, 4]);
    expect(server.requests).toHaveLength(4);
    await c.close();
  });

  it("the loop's failure rejects every caller with it; a timeout rejects its caller alone with the exact TimeoutError, clearing its timer and its signal's listener", async () => {
    server = await startServer((_req, res) => sendJson(res, 404, {}));
    const r = leader();
    const c = createCluster({ redis: r.redis, lease: LEASE });
    const url = `${server.url}/job`;
    const failures = await Promise.allSettled([0, 1].map(() => poll(url, { use: [c.share()], isDone: () => false })));
    expect(failures.map((f) => f.status === 'rejected' && f.reason instanceof HttpError && f.reason.status)).toEqual([404, 404]);
    await server.close();

    server = await answering();
    const next = `${server.url}/job`;
    const armed = new Map<unknown, number>();
    const env = {
      setTimeout: (callback: () => void, ms: number) => {
        const handle = setTimeout(() => (armed.delete(handle), callback()), ms);
        armed.set(handle, ms);
        return handle;
      },
      clearTimeout: (handle: unknown) => (armed.delete(handle), clearTimeout(handle as ReturnType<typeof setTimeout>)),
    };
    const stop = new AbortController();
    const share = { interval: 30, use: [c.share()], env };
    const timed = poll(next, { ...share, timeout: 120, isDone: () => false });
    const errors: unknown[] = [];
    await timed.catch((error: unknown) => errors.push(error));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(DOMException);
    expect(errors[0]).toMatchObject({ name: 'TimeoutError', message: 'Polling timed out after 120 ms' });
    const done = poll<{ n: number }>(`${next}/2`, { ...share, timeout: 60_000, signal: stop.signal, isDone: () => true });
    await done;
    expect([...armed.values()]).not.toContain(60_000);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    await c.close();
  });

  it('a caller that leaves before the job is hashed starts nothing; once every caller left, the next poll of it is a new job (its own token)', async () => {
    server = await answering();
    const r = leader();
    const c = createCluster({ redis: r.redis, lease: LEASE });
    const url = `${server.url}/job`;
    const stop = new AbortController();
    const gone = poll(url, { use: [c.share()], signal: stop.signal, isDone: () => false });
    stop.abort();
    await expect(gone).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.sent).toEqual([]);
    await poll(url, { use: [c.share()], isDone: () => true });
    await poll(url, { use: [c.share()], isDone: () => true });
    const tokens = r.sent.filter((s) => s.script === 'ACQUIRE').map((s) => s.args[0]);
    expect(tokens).toHaveLength(2);
    expect(new Set(tokens).size).toBe(2);
    await c.close();
  });

  it('a poll whose body cannot be compared unread (a Blob) runs on its own: nothing goes to Redis', async () => {
    server = await answering();
    const r = leader();
    const c = createCluster({ redis: r.redis, lease: LEASE });
    const body = await poll<{ n: number }>(`${server.url}/job`, { init: { method: 'POST', body: new Blob(['x']) }, use: [c.share()], isDone: () => true });
    expect(body).toEqual({ n: 1 });
    expect(r.sent).toEqual([]);
    await c.close();
  });
});

describe('what cluster.share() publishes of a body', () => {
  it('refuses options that are not an object', () => {
    const c = createCluster({ redis: leader().redis });
    expect(() => c.share(null as never)).toThrow(new TypeError('Expected `options` to be an object'));
    expect(() => c.share('x' as never)).toThrow(new TypeError('Expected `options` to be an object'));
  });

  it('a select that throws, or leaves no JSON, is reported and nothing published; a body of exactly maxBytes (bytes, not characters) is published, one more is not', async () => {
    const bodies: unknown[] = ['aaaa', 'éé', 'ééé', 'aaaaaaaaa', 'éééééééé', 7];
    server = await answering((n) => bodies[n - 1]);
    const r = leader();
    const statuses: ClusterStatus[] = [];
    const c = createCluster({ redis: r.redis, lease: LEASE, onStatus: (s) => statuses.push(s) });
    const broken = new Error('select failed');
    const picks: Array<(b: unknown) => unknown> = [
      (b) => b,
      (b) => b,
      (b) => b,
      (b) => b,
      (b) => b,
      () => {
        throw broken;
      },
    ];
    let i = 0;
    // JSON '"aaaa"' is 6 bytes, '"éé"' 6 bytes in 4 characters, '"ééé"' 8, '"aaaaaaaaa"' 11, '"éééééééé"' 18 in 10 characters.
    await poll(`${server.url}/job`, { interval: 10, use: [c.share({ maxBytes: 6, select: (b) => picks[i++]!(b) })], isDone: (b) => b === 7 });
    expect(r.sent.filter((s) => s.script === 'PUBLISH').map((s) => s.args[1])).toEqual(['"aaaa"', '"éé"']);
    expect(statuses).toEqual([
      { type: 'unpublished', reason: 'too-large', bytes: 8 },
      { type: 'unpublished', reason: 'too-large', bytes: 11 },
      { type: 'unpublished', reason: 'too-large', bytes: 18 },
      { type: 'unpublished', reason: 'error', error: broken },
    ]);
    await c.close();

    await server.close();
    server = await answering();
    const r2 = leader();
    const heard: ClusterStatus[] = [];
    const c2 = createCluster({ redis: r2.redis, lease: LEASE, onStatus: (s) => heard.push(s) });
    await poll(`${server.url}/other`, { use: [c2.share({ select: () => undefined })], isDone: () => true });
    expect(heard).toEqual([{ type: 'unpublished', reason: 'error', error: new TypeError('The body has no JSON') }]);
    expect(r2.names()).not.toContain('PUBLISH');
    await c2.close();
  });
});
