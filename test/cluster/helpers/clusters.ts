import { afterAll, afterEach, beforeAll } from 'vitest';
import { createCluster, type Cluster, type ClusterOptions, type ClusterStatus } from '../../../src/cluster/index.js';
import { connectClient, type ClientKind } from './clients.js';
import { hasRedis, startRedis, type RedisServer } from './redis-server.js';

/** A cluster of the test's own, standing for one process, with what its `onStatus` heard. */
export interface TestCluster {
  cluster: Cluster;
  client: object;
  /** The prefix of its keys: every cluster of one test shares it. */
  prefix: string;
  statuses: ClusterStatus[];
}

/**
 * The clusters' `deadline`, ms: the longest their 900 ms lease allows (a third of it), so that a busy machine's
 * stall of this process is not taken for Redis failing, which would make a process poll alone (`local`) in a test
 * that is not about faults (150 ms was not enough: CI-like load made 400 withdrawals and a maxmemory test's first
 * half second go `local`). The tests of a Redis fault set the deadline they measure against themselves.
 */
const DEADLINE = 300;

/**
 * Starts a redis-server for the test file (when there is one: `run` says)
 * and makes clusters on it, each with a client of its own, closed after
 * each test. Two clusters in one process stand for two processes: each
 * has its own jobs, lease tokens and cooldown ids. (Only the realm's own
 * cooldown is shared: tests of the cluster cooldown turn it off.)
 */
export function redisForTests(): { run: boolean; redis: () => RedisServer; cluster: (options?: Partial<ClusterOptions> & { kind?: ClientKind }) => Promise<TestCluster> } {
  const run = hasRedis();
  let redis: RedisServer | undefined;
  let prefix = 0;
  const opened: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    if (run) redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.close();
  });
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close().catch(() => undefined);
    prefix += 1;
  });
  return {
    run,
    redis: () => redis!,
    async cluster({ kind = 'node-redis', ...options } = {}) {
      const { client, close } = await connectClient(kind, redis!.url);
      const statuses: ClusterStatus[] = [];
      const cluster = createCluster({ redis: client, prefix: `t${prefix}:`, deadline: DEADLINE, lease: 900, recheck: 300, onStatus: (s) => statuses.push(s), ...options });
      opened.push({ close }, cluster);
      return { cluster, client, prefix: `t${prefix}:`, statuses };
    },
  };
}
