import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { ioRedis, nodeRedis, type ClusterRedis, type IoRedisLike, type NodeRedisLike } from '../../src/cluster/index.js';
import { connectClient, type ClientKind } from './helpers/clients.js';
import { until } from './helpers/processes.js';
import { hasRedis, startRedis, type RedisServer } from './helpers/redis-server.js';

// The adapters of redis-adapter.ts on their own: pub/sub, unsubscribing
// and closing against a real redis-server (what the server sees of the
// subscriber connection). adapter-scripted.test.ts has the connection
// watcher and the client detection over scripted clients.

const adapt = (kind: ClientKind, client: object): ClusterRedis => (kind === 'ioredis' ? ioRedis(client as IoRedisLike) : nodeRedis(client as NodeRedisLike));
const KINDS: ClientKind[] = ['node-redis', 'node-redis-v4', 'ioredis'];

describe.skipIf(!hasRedis())('the adapters over real clients', () => {
  let redis: RedisServer;
  let admin: ReturnType<typeof createClient>;
  beforeAll(async () => {
    redis = await startRedis();
    admin = (await createClient({ url: redis.url }).on('error', () => undefined).connect()) as ReturnType<typeof createClient>;
  });
  afterAll(async () => {
    await admin?.quit();
    await redis?.close();
  });
  /** Subscriber connections on `channel`, as the server counts them. */
  /** `read()` once it gives `want` (or its last answer after 2 s). */
  const settled = async (read: () => Promise<number>, want: number): Promise<number> => {
    const until = Date.now() + 2000;
    let got = await read();
    while (got !== want && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      got = await read();
    }
    return got;
  };
  const subscribers = async (channel: string): Promise<number> => Number(((await admin.sendCommand(['PUBSUB', 'NUMSUB', channel])) as unknown[])[1]);

  it.each(KINDS)('%s: a message reaches every listener of its channel (the message alone); one unsubscribed hears nothing, the last one unsubscribed ends the subscription', async (kind) => {
    const { client, close } = await connectClient(kind, redis.url);
    const adapter = adapt(kind, client);
    const channel = `ch:${kind}`;
    const heard: { a: unknown[][]; b: unknown[][] } = { a: [], b: [] };
    const a = (...args: unknown[]): void => void heard.a.push(args);
    const b = (...args: unknown[]): void => void heard.b.push(args);
    await adapter.subscribe(channel, a);
    await adapter.subscribe(channel, b);
    expect(await subscribers(channel)).toBe(1);
    expect(await admin.publish(channel, 'one')).toBe(1);
    await until(() => heard.a.length === 1 && heard.b.length === 1, 'the first message', 2000);
    await adapter.unsubscribe(channel, a);
    expect(await subscribers(channel)).toBe(1);
    expect(await admin.publish(channel, 'two')).toBe(1);
    await until(() => heard.b.length === 2, 'the second message', 2000);
    await adapter.unsubscribe(channel, b);
    expect(await subscribers(channel)).toBe(0);
    expect(await admin.publish(channel, 'three')).toBe(0);
    expect(heard).toEqual({ a: [['one']], b: [['one'], ['two']] });
    await adapter.close();
    await close();
  });

  it.each(KINDS)('%s: close() closes the subscriber connection it opened (the server drops its subscriptions), never the client', async (kind) => {
    const { client, close } = await connectClient(kind, redis.url);
    const adapter = adapt(kind, client);
    const channel = `closing:${kind}`;
    await adapter.subscribe(channel, () => undefined);
    expect(await subscribers(channel)).toBe(1);
    await adapter.close();
    // The server drops a closed connection's subscriptions when it reads the close: soon, not at once.
    expect(await settled(() => subscribers(channel), 0)).toBe(0);
    // The client itself is still open: commands go through it.
    expect(await adapter.send(['PING'])).toBe('PONG');
    await close();
  });

  it.each(KINDS)('%s: a client that is not connected fails at once with "Redis is not connected", sending nothing', async (kind) => {
    const { client, close } = await connectClient(kind, redis.url);
    const adapter = adapt(kind, client);
    const told: boolean[] = [];
    adapter.watch!((ready) => void told.push(ready));
    await close();
    // Once the client says it is down (ioredis's status stays 'ready' until then).
    await until(() => told.includes(false), 'the client down', 2000);
    await expect(adapter.send(['PING'])).rejects.toThrow(new Error('Redis is not connected'));
  });
});
