import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startServer, type SeenRequest, type TestServer } from '../helpers/server.js';
import { delay, killWorkers, quietMoment, startWorker, until, type Worker } from './helpers/processes.js';
import { hasRedis, startRedis, type RedisServer } from './helpers/redis-server.js';
import type { WorkerJob } from './helpers/worker.js';

// One poller per job across real processes: each worker is a forked Node
// process with its own Redis client (node-redis in some, ioredis in
// others), polling the same loopback API through `cluster.share()`.

const run = hasRedis();
let redis: RedisServer;
let server: TestServer | undefined;
let prefix = 0;

beforeAll(async () => {
  if (run) redis = await startRedis();
});
afterAll(async () => {
  await redis?.close();
});
afterEach(async () => {
  await killWorkers();
  await server?.close();
  server = undefined;
});

/** An API whose job answers {n}, counting; `answer` may replace the i-th answer (from 1). */
async function counting(answer?: (res: ServerResponse, n: number, seen: SeenRequest) => boolean): Promise<TestServer> {
  let n = 0;
  return startServer((_req, res, seen) => {
    n += 1;
    if (!answer?.(res, n, seen)) sendJson(res, 200, { n });
  });
}

const LEASE = 1200;
/** What an event-loop turn, a fork's IPC and the like add to a bound the design sets (the machine's own lag is added apart). */
const SLACK = 150;

const job = (over: Partial<WorkerJob> = {}): WorkerJob => ({
  redisUrl: redis.url,
  client: 'node-redis',
  prefix: `procs${++prefix}:`,
  url: `${server!.url}/jobs/42`,
  interval: 250,
  lease: LEASE,
  // Generous: these tests are about the election, not faults, and a busy two-core machine can be slow to answer.
  deadline: 400,
  use: ['share'],
  ...over,
});

const leaders = (workers: Worker[]): string[] => workers.filter((w) => w.role() === 'leader').map((w) => w.name);

/** Request times as the API saw them, ms since it started. */
const times = (): number[] => server!.requests.map((r) => r.at);

// Real processes on a shared machine start slowly (half a second each, more when it is busy).
describe.skipIf(!run)('cluster.share() across processes', { timeout: 60_000 }, () => {
  it('three processes poll one job: one leads and sends every request; the others send none and get every body', async () => {
    server = await counting();
    const base = job();
    const workers = await Promise.all([
      startWorker('a', { ...base, client: 'node-redis' }),
      startWorker('b', { ...base, client: 'ioredis' }),
      startWorker('c', { ...base, client: 'node-redis-v4' }),
    ]);
    await until(() => server!.requests.length >= 8, 'eight requests');
    expect(leaders(workers)).toHaveLength(1);
    const leader = workers.find((w) => w.role() === 'leader')!;
    // Counted at a moment nothing is in flight (a request the leader announced may not have reached the server
    // yet, a body it got may not have reached the others yet), not after a stop: stopped mid-request, the leader
    // announced a request that may never reach the server, and a follower may stop before the last body reaches it.
    const at = await quietMoment(server, leader, workers);
    expect(leaders(workers)).toEqual([leader.name]);
    expect(at.requests[workers.indexOf(leader)]).toBe(at.server);
    for (const [i, w] of workers.entries()) {
      if (w === leader) continue;
      expect(w.role()).toBe('follower');
      expect(at.requests[i]).toBe(0);
      // Every body from its first on, in order, none missing, up to the last the leader polled.
      const got = w.updates().slice(0, at.updates[i]);
      expect(got).toEqual(Array.from({ length: got.length }, (_, k) => got[0]! + k));
      expect(got.at(-1)).toBe(at.latest[workers.indexOf(leader)]);
    }
  });

  it('a process that joins gets the latest body at once, from Redis, before the next request', async () => {
    server = await counting();
    const base = job({ interval: 60_000 });
    const first = await startWorker('first', base);
    await until(() => first.updates().length === 1, 'the first body');
    const joiner = await startWorker('joiner', base);
    await until(() => joiner.updates().length === 1, "the joiner's first body");
    expect(joiner.updates()).toEqual([1]);
    expect(server.requests).toHaveLength(1);
    expect(joiner.role()).toBe('follower');
  });

  it('the leader stops: another process takes over, its first request one interval after the last one, within interval + lease', async () => {
    server = await counting();
    const base = job({ interval: 400 });
    const workers = await Promise.all([startWorker('a', base), startWorker('b', base), startWorker('c', base)]);
    await until(() => server!.requests.length >= 3, 'three requests');
    const leader = workers.find((w) => w.role() === 'leader')!;
    // Stopped in a wait, so nothing of its is in flight: every request it announced reached the server, and its
    // count is final once its poll settled (the server's count, read then, may hold the new leader's first too).
    leader.stop({ inWait: true });
    await leader.settled();
    const before = leader.requests();
    await until(() => server!.requests.length >= before + 3, 'three requests by the new leader');
    const others = workers.filter((w) => w !== leader);
    expect(leaders(others)).toHaveLength(1);
    const next = others.find((w) => w.role() === 'leader')!;
    // Counted at a moment nothing is in flight: a request the process announced may not have reached the server yet.
    const at = await quietMoment(server, next, others, { bodies: false });
    expect(at.requests[others.indexOf(next)]).toBe(at.server - before);
    const gap = times()[before]! - times()[before - 1]!;
    expect(gap).toBeGreaterThanOrEqual(400 - 5);
    expect(gap).toBeLessThan(400 + LEASE + SLACK + Math.max(...workers.map((w) => w.lag())));
  });

  it('SIGKILL during a Retry-After wait: a follower takes over after the lease, and waits out the Retry-After first', async () => {
    server = await counting((res, n) => n === 3 && (sendJson(res, 503, {}, { 'retry-after': '3' }), true));
    const base = job({ interval: 200 });
    const workers = await Promise.all([startWorker('a', base), startWorker('b', { ...base, client: 'ioredis' })]);
    await until(() => server!.requests.length === 3, 'the 503');
    const leader = workers.find((w) => w.role() === 'leader')!;
    await until(() => leader.events().some((e) => e.type === 'retry'), 'the retry wait');
    await delay(100);
    const killedAt = Date.now();
    await leader.kill();
    const follower = workers.find((w) => w !== leader)!;
    await until(() => server!.requests.length >= 4, 'the new leader’s request', 6000);
    expect(follower.role()).toBe('leader');
    // The old leader's wait (3 s, plus up to 20 %) is kept: the new leader's first request is not sooner.
    expect(times()[3]! - times()[2]!).toBeGreaterThanOrEqual(3000);
    expect(follower.events().find((e) => e.type === 'wait')).toMatchObject({ type: 'wait' });
    expect(Date.now() - killedAt).toBeLessThan(3600 + LEASE + SLACK + follower.lag());
  });

  it('SIGKILL in an interval wait: takeover within lease + interval, and the followers miss no body', async () => {
    server = await counting();
    const base = job({ interval: 300 });
    const workers = await Promise.all([startWorker('a', base), startWorker('b', base), startWorker('c', { ...base, client: 'ioredis' })]);
    await until(() => server!.requests.length >= 3, 'three requests');
    const leader = workers.find((w) => w.role() === 'leader')!;
    // Killed in a wait, at once (SIGKILL needs nothing of the process): nothing of its in flight, every request it
    // announced at the server, every body it got published. Seen in its IPC reports alone, its wait may be over.
    const before = (await quietMoment(server, leader, workers)).server;
    await leader.kill();
    await until(() => server!.requests.length >= before + 3, 'three requests by the new leader', 6000);
    const others = workers.filter((w) => w !== leader);
    expect(leaders(others)).toHaveLength(1);
    // Took over within one lease and one interval of the kill (the old leader's next request was due by then).
    expect(times()[before]! - times()[before - 1]!).toBeLessThan(LEASE + 300 + SLACK + Math.max(...others.map((w) => w.lag())));
    await delay(100);
    for (const w of others) {
      const got = w.updates();
      expect(got).toEqual(Array.from({ length: got.length }, (_, i) => got[0]! + i));
    }
  });

  it('different headers are different jobs; Redis holds no URL, path or header value, only hashes', async () => {
    server = await counting();
    const base = job({ url: `${server.url}/jobs/secret-path` });
    const a = await startWorker('a', { ...base, headers: { authorization: 'Bearer secret-a' } });
    const b = await startWorker('b', { ...base, headers: { authorization: 'Bearer secret-b' } });
    await until(() => a.updates().length >= 2 && b.updates().length >= 2, 'both polling');
    expect([a.role(), b.role()]).toEqual(['leader', 'leader']);
    const { createClient } = await import('redis');
    const admin = await createClient({ url: redis.url }).on('error', () => undefined).connect();
    const keys = (await admin.keys(`${base.prefix}*`)).sort();
    for (const key of keys) expect(key).toMatch(new RegExp(`^${base.prefix}job:\\{[0-9a-f]{64}\\}:(lease|last|next)$`));
    expect(new Set(keys.map((k) => k.split(':')[2])).size).toBe(2);
    const dump = JSON.stringify(await Promise.all(keys.map((k) => admin.type(k).then((t): Promise<unknown> => (t === 'hash' ? admin.hGetAll(k) : admin.get(k))))));
    expect(dump).not.toMatch(/secret|127\.0\.0\.1|jobs/);
    await admin.quit();
  });
});
