import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { createCluster, nodeRedis, ioRedis, type Cluster, type ClusterStatus, type IoRedisLike, type NodeRedisLike } from '../../src/cluster/index.js';
import { budgetKey } from '../../src/cluster/keys.js';
import { poll } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { connectClient, type ClientKind, type ClientSettings, type TestClient } from './helpers/clients.js';
import { jobServer, pollOneJob } from './helpers/one-job.js';
import { delay, killWorkers, quietMoment, startWorker, until } from './helpers/processes.js';
import { startRedisCluster, type RedisClusterServers } from './helpers/redis-cluster.js';
import { hasRedis } from './helpers/redis-server.js';

// pollite/cluster on a real Redis Cluster of three masters (started by the
// test file: test/cluster/helpers/redis-cluster.ts), through each
// library's cluster client: node-redis's createCluster (v5 and v4) and
// ioredis's Cluster, with their offline queues on and off. A job's keys
// and channel share one hash slot; budgets of other names live on other
// nodes; pub/sub (PUBLISH reaches every node's subscribers) carries the
// bodies.

const run = hasRedis();
let servers: RedisClusterServers;
let server: TestServer | undefined;
let prefix = 0;
const opened: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  if (run) servers = await startRedisCluster(3);
}, 30_000);
afterAll(async () => {
  await servers?.close();
});
afterEach(async () => {
  await killWorkers();
  for (const item of opened.splice(0).reverse()) await item.close().catch(() => undefined);
  await server?.close();
  server = undefined;
  prefix += 1;
});

const counting = (): Promise<TestServer> => {
  let n = 0;
  return startServer((_req, res) => sendJson(res, 200, { n: ++n }));
};

const urls = (): string[] => servers.nodes.map((node) => node.url);

/** A pollite cluster over a new client of `kind`, as one process would make it; closed after the test. */
async function clusterOver(kind: ClientKind, settings: ClientSettings = {}): Promise<{ cluster: Cluster; client: TestClient; statuses: ClusterStatus[] }> {
  const client = await connectClient(kind, urls(), settings);
  const statuses: ClusterStatus[] = [];
  const cluster = createCluster({ redis: client.client, prefix: `rc${prefix}:`, deadline: 600, lease: 1800, recheck: 300, onStatus: (s) => statuses.push(s) });
  opened.push(client, cluster);
  return { cluster, client, statuses };
}

/** Budget names whose keys live on three different nodes. */
async function namesOnEveryNode(): Promise<string[]> {
  const byNode = new Map<number, string>();
  for (let i = 0; byNode.size < servers.nodes.length; i++) {
    const node = await servers.nodeOf(budgetKey(`rc${prefix}:`, `b${i}`));
    if (!byNode.has(node.port)) byNode.set(node.port, `b${i}`);
  }
  return [...byNode.values()];
}

const MATRIX: Array<[ClientKind, boolean]> = [
  ['node-redis-cluster', true],
  ['node-redis-cluster', false],
  ['node-redis-v4-cluster', true],
  ['node-redis-v4-cluster', false],
  ['ioredis-cluster', true],
  ['ioredis-cluster', false],
];

describe.skipIf(!run)('a Redis Cluster of three masters', { timeout: 30_000 }, () => {
  it.each(MATRIX)('%s (offline queue %s): detected; one job, one poller, every body by pub/sub; budgets on every node', async (kind, offlineQueue) => {
    const job = await jobServer();
    server = job;
    const [a, b] = [await clusterOver(kind, { offlineQueue }), await clusterOver(kind, { offlineQueue })];
    await pollOneJob(job, [a.cluster, b.cluster], { nodes: urls(), prefix: `rc${prefix}:` });
    // Each budget's script goes to the node of its key (and is sent whole to each node once).
    const names = await namesOnEveryNode();
    for (const name of names) expect(await a.cluster.budget({ name, capacity: 10 }).withdraw(5)).toBe(true);
    for (const name of names) expect(await b.cluster.budget({ name, capacity: 10 }).withdraw(5)).toBe(true);
    for (const name of names) expect(await a.cluster.budget({ name, capacity: 10 }).withdraw(5)).toBe(false);
    for (const name of names) {
      const node = await servers.nodeOf(budgetKey(`rc${prefix}:`, name));
      const admin = await createClient({ url: node.url }).on('error', () => undefined).connect();
      expect(await admin.get(budgetKey(`rc${prefix}:`, name))).toBe('0');
      await admin.quit();
    }
    expect([...a.statuses, ...b.statuses]).toEqual([]);
    expect([a.cluster.connected, b.cluster.connected]).toEqual([true, true]);
  });

  it('nodeRedis() and ioRedis() take a cluster client by hand, as createCluster does', async () => {
    const job = await jobServer();
    server = job;
    const v5 = await connectClient('node-redis-cluster', urls());
    const io = await connectClient('ioredis-cluster', urls());
    opened.push(v5, io);
    const statuses: ClusterStatus[] = [];
    const clusters = [nodeRedis(v5.client as NodeRedisLike), ioRedis(io.client as IoRedisLike)].map((redis) =>
      createCluster({ redis, prefix: `rc${prefix}:`, deadline: 600, lease: 1800, onStatus: (s) => statuses.push(s) }),
    ) as [Cluster, Cluster];
    opened.push(...clusters);
    await pollOneJob(job, clusters, { nodes: urls(), prefix: `rc${prefix}:` });
    expect(statuses).toEqual([]);
  });

  it('three processes, one per cluster client: one leads, the others send nothing and get every body', async () => {
    server = await counting();
    const base = { redisUrl: urls(), prefix: `rc${prefix}:`, url: `${server.url}/jobs/1`, interval: 250, lease: 3000, deadline: 1000, use: ['share' as const] };
    const workers = await Promise.all([
      startWorker('v5', { ...base, client: 'node-redis-cluster' }),
      startWorker('v4', { ...base, client: 'node-redis-v4-cluster' }),
      startWorker('io', { ...base, client: 'ioredis-cluster', clientSettings: { offlineQueue: false } }),
    ]);
    // Counted from the third request: three processes started at once on a busy machine may take a moment to settle into one leader, subscribed followers.
    await until(() => server!.requests.length >= 3, 'three requests');
    await delay(500);
    const first = workers.find((w) => w.role() === 'leader');
    expect(first).toBeDefined();
    // Counted between two moments nothing is in flight (a request the leader announced may not have reached the
    // server yet, a body it got may not have reached the others yet); not after a stop, which may cut a request
    // or a publication short.
    const from = await quietMoment(server, first!, workers);
    await until(() => server!.requests.length >= from.server + 6, 'six more requests');
    // The sixth answer's body reaches every process too (its publication lags the request on a busy machine).
    const to = await quietMoment(server, first!, workers);
    const leaders = workers.filter((w) => w.role() === 'leader');
    expect(leaders).toHaveLength(1);
    const leader = workers.indexOf(leaders[0]!);
    expect(leaders[0]).toBe(first);
    expect(to.requests[leader]! - from.requests[leader]!).toBe(to.server - from.server);
    for (const [i, w] of workers.entries()) {
      if (i === leader) continue;
      expect([w.name, w.role(), to.requests[i]! - from.requests[i]!]).toEqual([w.name, 'follower', 0]);
      const got = w.updates().slice(from.updates[i], to.updates[i]);
      expect(got.length).toBeGreaterThanOrEqual(6);
      expect(got).toEqual(Array.from({ length: got.length }, (_, k) => got[0]! + k));
      expect(got.at(-1)).toBe(to.latest[leader]);
    }
  });

  it("the master of the job's slot killed: every process polls alone; restarted, they cooperate again", async () => {
    server = await counting();
    const kinds: ClientKind[] = ['node-redis-cluster', 'node-redis-v4-cluster', 'ioredis-cluster'];
    const made = await Promise.all(kinds.map((kind) => clusterOver(kind, { offlineQueue: false })));
    const stop = new AbortController();
    const sent: number[] = [0, 0, 0];
    const url = `${server.url}/killed`;
    const polls = made.map(({ cluster }, i) =>
      poll(url, { interval: 200, use: [cluster.share()], signal: stop.signal, isDone: () => false, onEvent: (e) => void (e.type === 'request' && (sent[i] = sent[i]! + 1)) }).catch(() => undefined),
    );
    await until(() => server!.requests.length >= 3, 'three requests');
    const owner = await ownerOfJob(`rc${prefix}:`);
    await owner.kill();
    const atKill = [...sent];
    await until(() => made.every((m, i) => m.statuses[0]?.type === 'local' && sent[i]! >= atKill[i]! + 2), 'every process polling alone', 15_000);
    await owner.start();
    await until(() => made.every((m) => m.statuses.at(-1)?.type === 'connected'), 'every process connected again', 20_000);
    await delay(2500);
    const before = [...sent];
    await delay(1000);
    expect(sent.map((n, i) => n - before[i]! > 0).filter(Boolean)).toHaveLength(1);
    stop.abort();
    await Promise.all(polls);
  });
});

/** The node holding the job's lease key under `prefix` (there is one job). */
async function ownerOfJob(jobPrefix: string): Promise<RedisClusterServers['nodes'][number]> {
  for (const node of servers.nodes) {
    const admin = await createClient({ url: node.url }).on('error', () => undefined).connect();
    const keys = await admin.keys(`${jobPrefix}job:*:lease`);
    await admin.quit();
    if (keys.length > 0) return node;
  }
  throw new Error('no lease key on any node');
}
