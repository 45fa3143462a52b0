import { createClient } from 'redis';
import { expect } from 'vitest';
import type { Cluster } from '../../../src/cluster/index.js';
import { poll } from '../../../src/index.js';
import { sendJson, startServer, type TestServer } from '../../helpers/server.js';

/** What two pollite clusters (two processes' worth) polling one job saw. */
export interface OneJob {
  /** Each one's `share` roles, in order. */
  roles: string[][];
  /** The `n` of each body each one's caller got, in order. */
  seen: number[][];
}

/** The job's API for {@link pollOneJob}: answers `{ n }`, counting; from its second answer on, only once `ready()` holds. */
export interface JobServer extends TestServer {
  ready: () => Promise<boolean>;
}

export async function jobServer(): Promise<JobServer> {
  let n = 0;
  const holder: { server?: JobServer } = {};
  const server = await startServer(async (_req, res) => {
    if (n >= 1) while (!(await holder.server!.ready())) await new Promise((resolve) => setTimeout(resolve, 20));
    sendJson(res, 200, { n: ++n });
  });
  holder.server = Object.assign(server, { ready: async () => true });
  return holder.server;
}

/** How many subscriptions the channels matching `pattern` have, over every node `admins` are connected to (a Redis Cluster's PUBSUB is per node). */
export async function subscriptions(admins: Array<ReturnType<typeof createClient>>, pattern: string): Promise<number> {
  let count = 0;
  for (const admin of admins) {
    const channels = (await admin.sendCommand(['PUBSUB', 'CHANNELS', pattern])) as string[];
    if (channels.length === 0) continue;
    const numsub = (await admin.sendCommand(['PUBSUB', 'NUMSUB', ...channels])) as unknown[];
    for (let i = 1; i < numsub.length; i += 2) count += Number(numsub[i]);
  }
  return count;
}

/**
 * Polls `server`'s `/job` (which answers `{ n }`, counting) through each
 * cluster's `share()` at once, at `interval`, until `n` reaches `last`; then
 * checks what one poller per job means: the server saw `last` requests, one
 * process led and the other followed, and the follower got every body from
 * its first on, in order, by pub/sub: its checks of Redis (every third of
 * the lease, longer than the interval) would skip some. `redis`: the
 * Redis (or Redis Cluster's nodes') URLs and the clusters' prefix, to see
 * their subscriptions in.
 */
export async function pollOneJob(
  server: JobServer,
  clusters: [Cluster, Cluster],
  redis: { nodes: string[]; prefix: string },
  { interval = 150, last = 6 } = {},
): Promise<OneJob> {
  const url = `${server.url}/job`;
  const roles: string[][] = [[], []];
  const seen: number[][] = [[], []];
  // The first body may come before the follower's subscription is made (it is made as the poll starts, apart from its
  // first check); the next ones only once it is, in Redis: a busy machine may take longer than an interval to make it.
  const admins = await Promise.all(redis.nodes.map(async (node) => (await createClient({ url: node }).on('error', () => undefined).connect()) as ReturnType<typeof createClient>));
  server.ready = async () => (await subscriptions(admins, `${redis.prefix}job:*`)) >= 2;
  try {
    const done = await Promise.all(
      clusters.map((cluster, i) =>
        poll<{ n: number }>(url, {
          interval,
          use: [cluster.share()],
          isDone: (body) => body.n >= last,
          onUpdate: (body) => void seen[i]!.push(body.n),
          onEvent: (event) => void (event.type === 'share' && roles[i]!.push(event.role)),
        }),
      ),
    );
    expect(done.map((body) => body.n)).toEqual([last, last]);
  } finally {
    server.ready = async () => true;
    await Promise.all(admins.map((admin) => admin.quit()));
  }
  expect(server.requests).toHaveLength(last);
  expect([...roles].sort()).toEqual([['follower'], ['leader']]);
  const follower = seen[roles.findIndex((r) => r[0] === 'follower')]!;
  // The first body may come before the follower's subscription did: every one after it, in order.
  expect(follower).toEqual(Array.from({ length: follower.length }, (_, i) => last - follower.length + 1 + i));
  expect(follower.length).toBeGreaterThanOrEqual(last - 1);
  return { roles, seen };
}
