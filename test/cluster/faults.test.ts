import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { createCluster, type ClusterRedis, type ClusterStatus } from '../../src/cluster/index.js';
import { poll, type PollEvent } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { lagProbe } from './helpers/lag.js';
import { delay, killWorkers, startWorker, until, type Worker } from './helpers/processes.js';
import { hasRedis, startRedis, type RedisServer } from './helpers/redis-server.js';
import type { WorkerJob } from './helpers/worker.js';

// Redis must never make a poller worse than a lone one: killed, slow,
// restarted or flushed, each process polls alone within a check and the
// operation deadline, and they cooperate again by themselves afterwards.

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
  // Every test leaves a running Redis behind it.
  await redis.start().catch(() => undefined);
});

async function counting(): Promise<TestServer> {
  let n = 0;
  return startServer((_req, res) => sendJson(res, 200, { n: ++n }));
}

const INTERVAL = 300;
const LEASE = 900;
const DEADLINE = 150;
/** What an event-loop turn, a fork's IPC and the like add to a bound the design sets (the machine's own lag is added apart). */
const SLACK = 100;
const job = (over: Partial<WorkerJob> = {}): WorkerJob => ({
  redisUrl: redis.url,
  client: 'node-redis',
  prefix: `faults${++prefix}:`,
  url: `${server!.url}/jobs/7`,
  interval: INTERVAL,
  lease: LEASE,
  deadline: DEADLINE,
  recheck: 300,
  use: ['share'],
  ...over,
});

const statuses = (w: Worker): Array<{ status: ClusterStatus; at: number }> => w.reports.flatMap((r) => (r.type === 'status' ? [r] : []));
const requestTimes = (w: Worker): number[] => w.reports.flatMap((r) => (r.type === 'event' && r.event.type === 'request' ? [r.at] : []));
/**
 * The longest a worker was late, from `since` on: from when a wait of its
 * loop was due to end (the `at` of a `wait` or `retry` event) to the
 * request that followed. A Redis in trouble may cost one deadline here.
 */
const longestStall = (w: Worker, since: number): number => stall(w.reports.flatMap((r) => (r.type === 'event' ? [r] : [])), since);
const stall = (reports: Array<{ event: PollEvent; at: number }>, since: number): number => {
  let due: number | undefined;
  let longest = 0;
  for (const r of reports) {
    if (r.at < since) continue;
    if (r.event.type === 'wait' || r.event.type === 'retry') due = r.event.at;
    else if (r.event.type === 'request' && due !== undefined) {
      longest = Math.max(longest, r.at - due);
      due = undefined;
    }
  }
  return longest;
};
const admin = async (): Promise<ReturnType<typeof createClient>> => createClient({ url: redis.url }).on('error', () => undefined).connect() as Promise<ReturnType<typeof createClient>>;

/** Waits until exactly one worker leads and the others follow, then for `ms` more: only the leader sends. */
async function cooperating(workers: Worker[], ms: number): Promise<Worker> {
  await until(() => workers.filter((w) => w.role() === 'leader').length === 1 && workers.every((w) => w.role() !== undefined), 'one leader again');
  await delay(LEASE);
  const leader = workers.find((w) => w.role() === 'leader')!;
  const before = workers.map((w) => w.requests());
  await delay(ms);
  // On failure, say what the processes that sent did last.
  const told = (w: Worker): string => JSON.stringify(w.reports.slice(-20).map((r) => (r.type === 'event' ? r.event.type : r.type)));
  const offenders = workers.filter((w, i) => w !== leader && w.requests() !== before[i]).map((w) => `${w.name}: ${told(w)}`);
  expect(workers.map((w, i) => (w === leader ? 'leader' : w.requests() - before[i]!)), offenders.join('\n')).toEqual(workers.map((w) => (w === leader ? 'leader' : 0)));
  // One request an interval, each wait as late as this busy machine runs the leader's timers (a fixed count of
  // ms / INTERVAL failed at a load average of 17: two requests in 1000 ms).
  expect(leader.requests() - before[workers.indexOf(leader)]!).toBeGreaterThanOrEqual(Math.floor(ms / (INTERVAL + leader.lag())) - 1);
  return leader;
}

describe.skipIf(!run)('Redis faults', { timeout: 60_000 }, () => {
  it('Redis killed mid-run: every process polls alone at once; restarted, one leads again and the others follow', async () => {
    server = await counting();
    const base = job();
    const workers = await Promise.all([startWorker('a', base), startWorker('b', { ...base, client: 'ioredis' }), startWorker('c', { ...base, client: 'node-redis-v4' })]);
    await cooperating(workers, 1000);
    const killedAt = Date.now();
    await redis.kill();
    await until(() => workers.every((w) => requestTimes(w).filter((t) => t > killedAt).length >= 3), 'each process polling alone');
    for (const w of workers) {
      const local = statuses(w).find((s) => s.status.type === 'local' && s.at >= killedAt)!;
      // A dropped connection is noticed at once (within a check and the deadline at worst).
      expect(local.at - killedAt).toBeLessThan(LEASE / 3 + DEADLINE + SLACK + w.lag());
      expect(w.role()).toBe('leader');
      expect(longestStall(w, killedAt)).toBeLessThan(DEADLINE + SLACK + w.lag());
    }
    await redis.start();
    await cooperating(workers, 1200);
    for (const w of workers) expect(statuses(w).at(-1)!.status.type).toBe('connected');
    expect(workers.every((w) => w.reports.every((r) => r.type !== 'settled'))).toBe(true);
  });

  it('Redis paused (CLIENT PAUSE): the followers poll alone within a check and the deadline; nobody stalls longer than the deadline; then they cooperate again', async () => {
    server = await counting();
    const base = job();
    const workers = await Promise.all([startWorker('a', base), startWorker('b', { ...base, client: 'ioredis' }), startWorker('c', base)]);
    await cooperating(workers, 600);
    const client = await admin();
    const pausedAt = Date.now();
    await client.sendCommand(['CLIENT', 'PAUSE', '2500', 'ALL']);
    await until(() => workers.every((w) => requestTimes(w).some((t) => t > pausedAt + LEASE / 3 + DEADLINE)), 'each process polling alone');
    await delay(Math.max(0, pausedAt + 2500 - Date.now()));
    for (const w of workers) {
      expect(statuses(w).some((s) => s.status.type === 'local' && s.at >= pausedAt)).toBe(true);
      expect(longestStall(w, pausedAt)).toBeLessThan(DEADLINE + SLACK + w.lag());
    }
    await cooperating(workers, 1200);
    await client.quit();
  });

  it('FLUSHALL: lease, kept body and waits are gone; one process goes on leading (or another takes over), without a stall', async () => {
    server = await counting();
    const base = job();
    const workers = await Promise.all([startWorker('a', base), startWorker('b', { ...base, client: 'ioredis' })]);
    await cooperating(workers, 600);
    const client = await admin();
    const flushedAt = Date.now();
    await client.flushAll();
    await delay(LEASE);
    const leader = await cooperating(workers, 1200);
    expect(longestStall(leader, flushedAt)).toBeLessThan(DEADLINE + SLACK + leader.lag());
    await client.quit();
  });

  it("Redis hung (DEBUG SLEEP): a poll's cluster cooldown hold takes at most the deadline, then none while Redis is known down; it cooperates again after", async () => {
    server = await startServer((_req, res) => sendJson(res, 200, {}));
    const redisClient = await createClient({ url: redis.url }).on('error', () => undefined).connect();
    const heard: ClusterStatus[] = [];
    const cluster = createCluster({ redis: redisClient, prefix: `hung${++prefix}:`, deadline: DEADLINE, recheck: 300, onStatus: (s) => heard.push(s) });
    const events: Array<{ event: PollEvent; at: number }> = [];
    const lag = lagProbe();
    const stop = new AbortController();
    const polling = poll(`${server.url}/x`, { interval: 100, use: [cluster.cooldown()], signal: stop.signal, isDone: () => false, onEvent: (event) => void events.push({ event, at: Date.now() }) });
    await until(() => events.length >= 6, 'polling');
    const client = await admin();
    const sleptAt = Date.now();
    const slept = client.sendCommand(['DEBUG', 'SLEEP', '1.5']);
    await slept;
    await until(() => heard.some((s) => s.type === 'connected'), 'Redis back');
    await delay(300);
    stop.abort();
    await polling.catch(() => undefined);
    // One deadline, once, while Redis slept: then it is known down until the recheck, and holds cost nothing.
    expect(stall(events, sleptAt)).toBeLessThan(DEADLINE + SLACK + lag.stop());
    expect(events.filter((e) => e.at > sleptAt && e.event.type === 'request').length).toBeGreaterThan(1500 / (100 + DEADLINE));
    expect(heard.map((s) => s.type)).toEqual(['local', 'connected']);
    await cluster.close();
    await redisClient.quit();
    await client.quit();
  });

  it('a Redis that never answers: every hold gives up after the deadline, polling is never held longer, a shared poll runs alone', async () => {
    server = await counting();
    const never: ClusterRedis = {
      send: () => new Promise(() => undefined),
      subscribe: () => new Promise(() => undefined),
      unsubscribe: async () => undefined,
      close: async () => undefined,
    };
    const heard: ClusterStatus[] = [];
    const cluster = createCluster({ redis: never, deadline: 100, recheck: 60_000, onStatus: (s) => heard.push(s) });
    const events: PollEvent[] = [];
    const lag = lagProbe();
    const started = Date.now();
    const body = await poll<{ n: number }>(`${server.url}/x`, { interval: 50, use: [cluster.share(), cluster.cooldown()], isDone: (t) => t.n >= 4, onEvent: (e) => events.push(e) });
    expect(body.n).toBe(4);
    expect(server.requests).toHaveLength(4);
    expect(events.filter((e) => e.type === 'share')).toEqual([{ type: 'share', role: 'leader' }]);
    expect(heard.map((s) => s.type)).toEqual(['local']);
    // One deadline (the first lease check and the first hold, side by side), then Redis is known down until the recheck.
    // Four waits in a row (the deadline, three intervals), each of which a busy machine may run late.
    expect(Date.now() - started).toBeLessThan(100 + 3 * 50 + SLACK + 4 * lag.stop());
  });
});
