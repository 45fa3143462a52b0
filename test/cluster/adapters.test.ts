import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { createCluster, nodeRedis, ioRedis, type ClusterRedis, type NodeRedisLike, type IoRedisLike } from '../../src/cluster/index.js';
import { poll } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { connectClient } from './helpers/clients.js';
import { redisForTests } from './helpers/clusters.js';
import { lagProbe } from './helpers/lag.js';

const { run, redis, cluster } = redisForTests();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('createCluster() options', () => {
  const client = { isReady: true, sendCommand: async () => null, duplicate: () => client, on: () => client, off: () => client };
  it.each([
    [{ redis: {} }, 'Expected `redis` to be a node-redis client, an ioredis client or a ClusterRedis adapter'],
    [{ redis: client, deadline: 0 }, 'Expected `deadline` to be a finite number >= 1'],
    [{ redis: client, lease: 600 }, 'Expected `lease` to be a finite number >= 750'],
    [{ redis: client, recheck: -1 }, 'Expected `recheck` to be a finite number >= 0'],
    [{ redis: client, prefix: 1 }, 'Expected `prefix` to be a string'],
    [{ redis: client, onStatus: 'x' }, 'Expected `onStatus` to be a function'],
  ])('refuses %o with a TypeError naming the option', (options, message) => {
    expect(() => createCluster(options as never)).toThrow(new TypeError(message));
  });

  it('refuses bad share, budget and fetch options with a TypeError naming the option', () => {
    const c = createCluster({ redis: client });
    expect(() => c.share({ maxBytes: -1 })).toThrow(new TypeError('Expected `maxBytes` to be a finite number >= 0'));
    expect(() => c.share({ select: 1 as never })).toThrow(new TypeError('Expected `select` to be a function'));
    expect(() => c.share({ publish: 'yes' as never })).toThrow(new TypeError('Expected `publish` to be a boolean'));
    expect(() => c.budget({ name: '' })).toThrow(new TypeError('Expected `name` to be a non-empty string'));
    expect(() => c.budget({ capacity: -1 })).toThrow(TypeError);
    expect(() => c.fetch({ maxRetryAfter: -1 })).toThrow(new TypeError('Expected `maxRetryAfter` to be a finite number >= 0'));
  });
});

describe.skipIf(!run)('the Redis adapters', () => {
  it('node-redis v5, node-redis v4 and ioredis clients, detected or adapted by hand, share one job: one request per interval for all', async () => {
    server = await startServer((_req, res, _seen, i) => sendJson(res, 200, { n: i + 1 }));
    const v5 = await cluster({ kind: 'node-redis' });
    const v4 = await connectClient('node-redis-v4', redis().url);
    const io = await connectClient('ioredis', redis().url);
    const byHand = [
      createCluster({ redis: nodeRedis(v4.client as NodeRedisLike), prefix: v5.prefix }),
      createCluster({ redis: ioRedis(io.client as IoRedisLike), prefix: v5.prefix }),
    ];
    try {
      const url = `${server.url}/job`;
      const seen: number[][] = [[], [], []];
      const all = [v5.cluster, ...byHand].map((c, i) =>
        poll<{ n: number }>(url, { interval: 150, use: [c.share()], isDone: (t) => t.n >= 6, onUpdate: (t) => void seen[i]!.push(t.n) }),
      );
      expect((await Promise.all(all)).map((t) => t.n)).toEqual([6, 6, 6]);
      expect(server.requests).toHaveLength(6);
      for (const got of seen) expect(got.at(-1)).toBe(6);
    } finally {
      for (const c of byHand) await c.close();
      await v4.close();
      await io.close();
    }
  });

  it('a script goes whole the first time, then by its SHA; one Redis forgot (SCRIPT FLUSH, as after a restart) is sent whole once more', async () => {
    const seen: string[] = [];
    const { client } = await connectClient('node-redis', redis().url);
    const inner = nodeRedis(client as NodeRedisLike);
    const counting: ClusterRedis = { ...inner, send: (args) => (seen.push(args[0]!), inner.send(args)) };
    const c = createCluster({ redis: counting, prefix: `forgot:` });
    const budget = c.budget();
    expect(await budget.withdraw(5)).toBe(true);
    const admin = await createClient({ url: redis().url }).on('error', () => undefined).connect();
    await admin.sendCommand(['SCRIPT', 'FLUSH']);
    expect(await budget.withdraw(5)).toBe(true);
    expect(await budget.withdraw(5)).toBe(true);
    expect(seen).toEqual(['EVAL', 'EVALSHA', 'EVAL', 'EVALSHA']);
    expect(c.connected).toBe(true);
    await admin.quit();
    await c.close();
    await (client as { quit(): Promise<unknown> }).quit();
  });

  it('a client that is not connected fails at once (nothing is queued to run late): the process goes on alone', async () => {
    for (const kind of ['node-redis', 'node-redis-v4', 'ioredis'] as const) {
      const { client, close } = await connectClient(kind, redis().url);
      const statuses: string[] = [];
      const c = createCluster({ redis: client, prefix: `closed:`, deadline: 5000, onStatus: (s) => statuses.push(s.type) });
      await close();
      const started = Date.now();
      const lag = lagProbe();
      expect(await c.budget({ capacity: 5 }).withdraw(5)).toBe(true);
      // At once, not after the 5 s deadline: a turn or two, plus however late this busy process ran meanwhile.
      expect(Date.now() - started).toBeLessThan(100 + lag.stop());
      expect(statuses).toEqual(['local']);
      expect(c.connected).toBe(false);
      await c.close();
    }
  });
});
