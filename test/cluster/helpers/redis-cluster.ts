import { createClient } from 'redis';
import { freePort, startRedis, type RedisServer } from './redis-server.js';

/** A real Redis Cluster of the test's own: `masters` redis-servers (no replicas), all 16384 slots assigned. */
export interface RedisClusterServers {
  nodes: RedisServer[];
  /** `{ url }` of each node, for node-redis's `createCluster({ rootNodes })`. */
  rootNodes: Array<{ url: string }>;
  /** `{ host, port }` of each node, for ioredis's `new Cluster(...)`. */
  startupNodes: Array<{ host: string; port: number }>;
  /** The node that serves `key`'s slot. */
  nodeOf(key: string): Promise<RedisServer>;
  close(): Promise<void>;
}

const SLOTS = 16_384;

/** Resolves once `read()` is true, polling every 50 ms; throws `what` after `within` ms. */
async function waitFor(read: () => Promise<boolean>, what: string, within = 15_000): Promise<void> {
  const until = Date.now() + within;
  while (!(await read())) {
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts a Redis Cluster as `redis-cli --cluster create` would, without
 * needing redis-cli: each node is a redis-server with `--cluster-enabled
 * yes` (its bus on a free port of its own, so no port + 10000 clash),
 * given an equal range of the slots (CLUSTER ADDSLOTS) and introduced to
 * the first node (CLUSTER MEET); resolves once every node says
 * `cluster_state:ok` and knows every other.
 */
export async function startRedisCluster(masters = 3): Promise<RedisClusterServers> {
  const nodes: RedisServer[] = [];
  const buses: number[] = [];
  for (let i = 0; i < masters; i++) {
    const bus = await freePort();
    buses.push(bus);
    nodes.push(await startRedis(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(bus), '--cluster-node-timeout', '2000']));
  }
  const admins = await Promise.all(nodes.map((node) => createClient({ url: node.url }).on('error', () => undefined).connect()));
  try {
    await Promise.all(
      admins.map((admin, i) => {
        const from = Math.floor((SLOTS * i) / masters);
        const to = Math.floor((SLOTS * (i + 1)) / masters);
        return admin.sendCommand(['CLUSTER', 'ADDSLOTS', ...Array.from({ length: to - from }, (_, k) => String(from + k))]);
      }),
    );
    for (let i = 1; i < masters; i++) await admins[i]!.sendCommand(['CLUSTER', 'MEET', '127.0.0.1', String(nodes[0]!.port), String(buses[0])]);
    await waitFor(
      async () => {
        const infos = await Promise.all(admins.map((admin) => admin.sendCommand(['CLUSTER', 'INFO']) as Promise<string>));
        return infos.every((info) => info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${masters}`));
      },
      'the Redis Cluster to form',
    );
  } finally {
    await Promise.all(admins.map((admin) => admin.quit().catch(() => undefined)));
  }
  return {
    nodes,
    rootNodes: nodes.map((node) => ({ url: node.url })),
    startupNodes: nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
    async nodeOf(key) {
      const admin = await createClient({ url: nodes[0]!.url }).on('error', () => undefined).connect();
      const slot = Number(await admin.sendCommand(['CLUSTER', 'KEYSLOT', key]));
      await admin.quit();
      return nodes[Math.min(masters - 1, nodes.findIndex((_, i) => slot < Math.floor((SLOTS * (i + 1)) / masters)))]!;
    },
    async close() {
      await Promise.all(nodes.map((node) => node.close()));
    },
  };
}
