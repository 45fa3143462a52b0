import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { redisForTests } from './helpers/clusters.js';
import { lagProbe } from './helpers/lag.js';

const { run, redis, cluster } = redisForTests();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const results = (values: boolean[]): string => values.map((v) => (v ? 'y' : 'n')).join('');

describe.skipIf(!run)('cluster.budget()', () => {
  it("has createRetryBudget's semantics: capacity 500, retry 5, timeout 10, refund 1 by default; withdrawals past the tokens left take nothing", async () => {
    const { cluster: c } = await cluster();
    const defaults = c.budget();
    expect([defaults.capacity, defaults.retryCost, defaults.timeoutCost, defaults.successRefund]).toEqual([500, 5, 10, 1]);
    const small = c.budget({ name: 'small', capacity: 12 });
    const taken = [await small.withdraw(5), await small.withdraw(5), await small.withdraw(5), await small.withdraw(2), await small.withdraw(1)];
    expect(results(taken)).toBe('yynyn');
    await small.refund();
    expect(results([await small.withdraw(1), await small.withdraw(1)])).toBe('yn');
    // Refunds never fill it above its capacity; a full bucket is no key at all.
    for (let i = 0; i < 20; i += 1) await small.refund();
    expect(results([await small.withdraw(12), await small.withdraw(1)])).toBe('yn');
    expect(await defaults.withdraw(-1)).toBe(false);
  });

  it('is one bucket for every process, withdrawn from atomically: 400 concurrent withdrawals of 5 from 500 tokens, exactly 100 paid', async () => {
    const clusters = await Promise.all([cluster(), cluster({ kind: 'ioredis' }), cluster({ kind: 'node-redis-v4' }), cluster()]);
    const budgets = clusters.map((c) => c.cluster.budget({ name: 'shared' }));
    const paid = await Promise.all(Array.from({ length: 400 }, (_, i) => budgets[i % 4]!.withdraw(5)));
    // Every withdrawal reached Redis (none fell back on a process's own bucket).
    expect(clusters.map((c) => c.statuses)).toEqual([[], [], [], []]);
    expect(paid.filter(Boolean)).toHaveLength(100);
  });

  it('retry: { budget } of fetchWithRetry, across processes: 20 calls against an API failing every request send at most capacity / retryCost retries', async () => {
    server = await startServer((_req, res) => sendJson(res, 503, {}));
    const budgets = await Promise.all([cluster(), cluster({ kind: 'ioredis' })].map(async (c) => (await c).cluster.budget({ name: 'calls', capacity: 30 })));
    const calls = Array.from({ length: 20 }, (_, i) => fetchWithRetry(`${server!.url}/x`, { retry: { budget: budgets[i % 2]!, retries: 3, backoff: () => 5 } }));
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual(Array(20).fill(503));
    // 20 first tries, and 30 / 5 = 6 retries between both processes.
    expect(server.requests).toHaveLength(26);
  });

  it('when Redis fails, each process retries from its own bucket, charged with what it withdrew; back, it tells a restarted Redis what it knew', async () => {
    const { cluster: c, statuses } = await cluster({ deadline: 150 });
    const budget = c.budget({ name: 'gap', capacity: 20 });
    expect(results([await budget.withdraw(5), await budget.withdraw(5), await budget.withdraw(5)])).toBe('yyy');
    await redis().kill();
    const started = Date.now();
    const lag = lagProbe();
    expect(results([await budget.withdraw(5), await budget.withdraw(5)])).toBe('yn');
    // Within the deadline (150 ms) and an event-loop turn or two, plus however late this busy process ran meanwhile.
    expect(Date.now() - started).toBeLessThan(150 + 100 + lag.stop());
    expect(statuses.map((s) => s.type)).toEqual(['local']);
    await redis().start();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The restarted Redis forgot the bucket: this process tells it what it knew (0 left), rather than a full one.
    expect(results([await budget.withdraw(5)])).toBe('n');
    expect(statuses.map((s) => s.type)).toEqual(['local', 'connected']);
    for (let i = 0; i < 5; i += 1) await budget.refund();
    expect(results([await budget.withdraw(5), await budget.withdraw(1)])).toBe('yn');
  });

  it('when Redis fails, a process retries no more than the shared bucket had left when it last saw it', async () => {
    const [a, b] = [await cluster({ deadline: 150 }), await cluster({ kind: 'ioredis', deadline: 150 })];
    const [ba, bb] = [a.cluster.budget({ name: 'spent', capacity: 20 }), b.cluster.budget({ name: 'spent', capacity: 20 })];
    // a takes 10 (sees 10 left), b takes 10 (sees 0 left): the cluster's budget is spent.
    expect(results([await ba.withdraw(5), await ba.withdraw(5), await bb.withdraw(5), await bb.withdraw(5), await bb.withdraw(5)])).toBe('yyyyn');
    await redis().kill();
    // Alone, each would have 10 left; b saw the shared bucket empty, a saw 10 in it.
    expect(results([await bb.withdraw(5)])).toBe('n');
    expect(results([await ba.withdraw(5), await ba.withdraw(5), await ba.withdraw(5)])).toBe('yyn');
    await redis().start();
  });
});
