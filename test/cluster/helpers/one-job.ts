import { expect } from 'vitest';
import type { Cluster } from '../../../src/cluster/index.js';
import { poll } from '../../../src/index.js';
import type { TestServer } from '../../helpers/server.js';

/** What two pollite clusters (two processes' worth) polling one job saw. */
export interface OneJob {
  /** Each one's `share` roles, in order. */
  roles: string[][];
  /** The `n` of each body each one's caller got, in order. */
  seen: number[][];
}

/**
 * Polls `server`'s `/job` (which answers `{ n }`, counting) through each
 * cluster's `share()` at once, at `interval`, until `n` reaches `last`; then
 * checks what one poller per job means: the server saw `last` requests, one
 * process led and the other followed, and the follower got every body from
 * its first on, in order, by pub/sub: its checks of Redis (every third of
 * the lease, longer than the interval) would skip some.
 */
export async function pollOneJob(server: TestServer, clusters: [Cluster, Cluster], { interval = 150, last = 6 } = {}): Promise<OneJob> {
  const url = `${server.url}/job`;
  const roles: string[][] = [[], []];
  const seen: number[][] = [[], []];
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
  expect(server.requests).toHaveLength(last);
  expect([...roles].sort()).toEqual([['follower'], ['leader']]);
  const follower = seen[roles.findIndex((r) => r[0] === 'follower')]!;
  // The first body may come before the follower's subscription did: every one after it, in order.
  expect(follower).toEqual(Array.from({ length: follower.length }, (_, i) => last - follower.length + 1 + i));
  expect(follower.length).toBeGreaterThanOrEqual(last - 1);
  return { roles, seen };
}
