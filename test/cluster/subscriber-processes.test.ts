import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { delay, killWorkers, quietMoment, startWorker, until } from './helpers/processes.js';
import { hasRedis, startRedis, type RedisServer } from './helpers/redis-server.js';

// subscriber.test.ts across real processes: with their offline queues off
// (ioredis's `enableOfflineQueue: false`, which docs/cluster.md recommends,
// and node-redis's `disableOfflineQueue`), a follower process still gets
// every body by pub/sub, not only from its checks of Redis.

const run = hasRedis();
let redis: RedisServer;
let server: TestServer | undefined;
const prefix = 'subscriber-procs:';
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

describe.skipIf(!run)('the subscriber connection, in real processes', { timeout: 30_000 }, () => {
  it('two processes with enableOfflineQueue: false (ioredis) and disableOfflineQueue (node-redis): the follower gets every body', async () => {
    let n = 0;
    server = await startServer((_req, res) => sendJson(res, 200, { n: ++n }));
    const base = { redisUrl: redis.url, prefix, url: `${server.url}/jobs/1`, interval: 250, lease: 3000, deadline: 1000, use: ['share' as const], clientSettings: { offlineQueue: false } };
    // The ioredis process joins second, so that it follows.
    const leader = await startWorker('nr', { ...base, client: 'node-redis' });
    await until(() => leader.role() === 'leader', 'the first process leading');
    const follower = await startWorker('io', { ...base, client: 'ioredis' });
    const workers = [leader, follower];
    // It joins with the kept body (a catch-up), while its subscription is still being made: every body from a moment later.
    await until(() => follower.updates().length >= 2, 'two bodies');
    await delay(500);
    const from = follower.updates().length;
    await until(() => follower.updates().length >= from + 8, 'eight more bodies');
    // Counted at a moment nothing is in flight (a request the leader announced may not have reached the server yet,
    // a body it got may not have reached the follower yet); not after a stop, which may cut either short.
    const at = await quietMoment(server, leader, workers);
    expect([follower.role(), at.requests[1], at.requests[0]]).toEqual(['follower', 0, at.server]);
    const got = follower.updates().slice(from, at.updates[1]);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => got[0]! + i));
    expect(got.at(-1)).toBe(at.latest[0]);
  });
});
