import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { createCluster, ioRedis, nodeRedis, type Cluster, type ClusterRedis, type IoRedisLike, type NodeRedisLike } from '../../src/cluster/index.js';
import { poll } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { connectClient, type ClientKind, type TestClient } from './helpers/clients.js';
import { jobServer, pollOneJob, subscriptions } from './helpers/one-job.js';
import { redisForTests } from './helpers/clusters.js';
import { delay, until } from './helpers/processes.js';
import type { RedisServer } from './helpers/redis-server.js';

// The subscriber connection pollite opens (a duplicate of your client)
// must end up subscribed whatever the client's settings and whenever Redis
// comes and goes: with ioredis's `enableOfflineQueue: false` (which
// docs/cluster.md recommends) or node-redis's `disableOfflineQueue`, a
// SUBSCRIBE sent before the duplicate is ready, or while Redis is down, is
// refused; pollite waits for it to be ready and subscribes again. Without
// that, followers learn bodies only from their checks of Redis (every third
// of the lease).

const tests = redisForTests();
const { run } = tests;
let redis: RedisServer;
let admin: ReturnType<typeof createClient>;
let server: TestServer | undefined;
let prefix = 0;
const opened: Array<{ close(): Promise<void> }> = [];
beforeEach(() => {
  redis = tests.redis();
});
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close().catch(() => undefined);
  await admin?.quit().catch(() => undefined);
  await server?.close();
  server = undefined;
  await redis?.start();
  prefix += 1;
});

const KINDS: ClientKind[] = ['node-redis', 'node-redis-v4', 'ioredis'];
const MATRIX = KINDS.flatMap((kind) => [true, false].map((offlineQueue): [ClientKind, boolean] => [kind, offlineQueue]));
const adapt = (kind: ClientKind, client: object): ClusterRedis => (kind === 'ioredis' ? ioRedis(client as IoRedisLike) : nodeRedis(client as NodeRedisLike));

async function open(kind: ClientKind, offlineQueue: boolean): Promise<TestClient> {
  const client = await connectClient(kind, redis.url, { offlineQueue });
  opened.push(client);
  return client;
}

async function connectAdmin(): Promise<void> {
  admin = (await createClient({ url: redis.url }).on('error', () => undefined).connect()) as ReturnType<typeof createClient>;
}

/** Publishes `message` on `channel` until a subscriber gets it (the subscription may still be on its way), for up to 8 s. */
async function deliver(channel: string, message: string, heard: string[]): Promise<void> {
  for (const deadline = Date.now() + 8000; !heard.includes(message) && Date.now() < deadline; ) {
    await admin.publish(channel, message);
    await delay(50);
  }
}

describe.skipIf(!run)('the subscriber connection', { timeout: 30_000 }, () => {
  it.each(MATRIX)('%s (offline queue %s): the first subscription waits for the new connection, and is made', async (kind, offlineQueue) => {
    await connectAdmin();
    const { client } = await open(kind, offlineQueue);
    const adapter = adapt(kind, client);
    opened.push(adapter);
    const heard: string[] = [];
    await adapter.subscribe('first', (message) => void heard.push(message));
    expect(await admin.publish('first', 'one')).toBe(1);
    await until(() => heard.length === 1, 'the message', 2000);
    expect(heard).toEqual(['one']);
  });

  it.each(MATRIX)('%s (offline queue %s): subscriptions made while Redis is down (the first, and a later one) are made when it is back', async (kind, offlineQueue) => {
    const first = adapt(kind, (await open(kind, offlineQueue)).client);
    const later = adapt(kind, (await open(kind, offlineQueue)).client);
    opened.push(first, later);
    const heard: string[] = [];
    await later.subscribe('before', () => undefined);
    await redis.kill();
    await delay(300);
    void first.subscribe('down-first', (message) => void heard.push(message));
    void later.subscribe('down-later', (message) => void heard.push(message));
    await delay(300);
    await redis.start();
    await connectAdmin();
    await deliver('down-first', 'a', heard);
    await deliver('down-later', 'b', heard);
    expect([heard.includes('a'), heard.includes('b')]).toEqual([true, true]);
  });

  it('unsubscribing while Redis is down: the channel is not subscribed again when it is back', async () => {
    for (const kind of KINDS) {
      const adapter = adapt(kind, (await open(kind, false)).client);
      opened.push(adapter);
      const listener = (): void => undefined;
      await adapter.subscribe(`gone:${kind}`, listener);
      await redis.kill();
      await delay(200);
      void adapter.subscribe(`kept:${kind}`, listener);
      void adapter.unsubscribe(`gone:${kind}`, listener);
      void adapter.unsubscribe(`kept:${kind}`, listener);
      await redis.start();
      await connectAdmin();
      await delay(1500);
      const counts = (await admin.sendCommand(['PUBSUB', 'NUMSUB', `gone:${kind}`, `kept:${kind}`])) as unknown[];
      expect([kind, counts.map(String)]).toEqual([kind, [`gone:${kind}`, '0', `kept:${kind}`, '0']]);
      await admin.quit();
    }
  });

  it.each(MATRIX)('%s (offline queue %s): two processes’ worth of polls started while Redis is down cooperate when it is back, every body by pub/sub', async (kind, offlineQueue) => {
    let n = 0;
    server = await startServer((_req, res) => sendJson(res, 200, { n: ++n }));
    /** Every status either cluster reported. */
    const statuses: string[] = [];
    const clusters = await Promise.all(
      [0, 1].map(async () => {
        const { client } = await open(kind, offlineQueue);
        // The longest deadline the lease allows: a busy machine's stall of this process is not taken for Redis failing
        // once it is back (a process polling alone then would take bodies from the follower), unless a long one.
        const cluster = createCluster({ redis: client, prefix: `down${prefix}:`, deadline: 300, lease: 900, recheck: 300, onStatus: (s) => void statuses.push(s.type) });
        opened.push(cluster);
        return cluster;
      }),
    );
    await redis.kill();
    await delay(200);
    const stop = new AbortController();
    const seen: number[][] = [[], []];
    const roles: string[][] = [[], []];
    const polls = clusters.map((c, i) =>
      poll<{ n: number }>(`${server!.url}/job`, {
        interval: 100,
        use: [c.share()],
        signal: stop.signal,
        isDone: () => false,
        onUpdate: (t) => void seen[i]!.push(t.n),
        onEvent: (e) => void (e.type === 'share' && roles[i]!.push(e.role)),
      }).catch(() => undefined),
    );
    await delay(300);
    await redis.start();
    await connectAdmin();
    // Counted over eight bodies during which neither process reported a change of Redis's state. Redis is up all
    // along then; but a stall of this busy process longer than the deadline is, to both clusters in it, a Redis that
    // did not answer: they rightly poll alone a moment (585 ms did so at a load average of 15). A window holding such
    // a moment is counted again, from when they cooperate again.
    let got: number[] = [];
    for (;;) {
      await until(() => roles.some((r) => r.at(-1) === 'follower') && roles.some((r) => r.at(-1) === 'leader'), 'one leader, one follower', 8000);
      const follower = roles.findIndex((r) => r.at(-1) === 'follower');
      // Its subscription is made once the connection is ready again (a busy machine may take a while): counted from a
      // moment both processes' subscriptions are in Redis.
      while ((await subscriptions([admin], `down${prefix}:job:*`)) < 2) await delay(20);
      const heard = statuses.length;
      const from = seen[follower]!.length;
      await until(() => seen[follower]!.length >= from + 8 || statuses.length > heard, 'eight bodies', 8000);
      if (statuses.length > heard) continue;
      got = seen[follower]!.slice(from);
      break;
    }
    stop.abort();
    await Promise.all(polls);
    expect(got.length).toBeGreaterThanOrEqual(8);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => got[0]! + i));
  });

  it.each(MATRIX)('%s (offline queue %s): one job in two clusters, every body by pub/sub', async (kind, offlineQueue) => {
    const job = await jobServer();
    server = job;
    const clusters = (await Promise.all(
      [0, 1].map(async () => {
        const cluster = createCluster({ redis: (await open(kind, offlineQueue)).client, prefix: `one${prefix}:`, deadline: 600, lease: 1800 });
        opened.push(cluster);
        return cluster;
      }),
    )) as [Cluster, Cluster];
    await pollOneJob(job, clusters, { nodes: [redis.url], prefix: `one${prefix}:` });
  });
});
