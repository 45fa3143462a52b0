// clusterCheckpoints(): the Redis checkpoint store, against a real redis-server. Two clusters in one
// process stand for two workers (each store has its own lease token). What the fleet tests with real
// processes prove (a worker SIGKILLed, its call taken over) is in ./checkpoint-processes.test.ts.
import { describe, expect, it } from 'vitest';
import { clusterCheckpoints, createCluster, isCheckpointLeaseError } from '../../src/cluster/index.js';
import { checkpointKeys } from '../../src/cluster/checkpoint-store.js';
import { pollOperation } from '../../src/operation/index.js';
import { checkpoint, isCheckpointRefusedError } from '../../src/resume/index.js';
import { sendJson, startServer } from '../helpers/server.js';
import { redisForTests } from './helpers/clusters.js';
import type { ClientKind } from './helpers/clients.js';

const { run, redis, cluster } = redisForTests();

/** Sends one raw command through a test's client (node-redis or ioredis). */
const command = (client: object, args: string[]): Promise<unknown> => {
  const c = client as { sendCommand?: (a: string[]) => Promise<unknown>; call?: (...a: string[]) => Promise<unknown> };
  return c.call ? c.call(...args) : c.sendCommand!(args);
};

const settle = <T>(promise: Promise<T>): Promise<T | Error> => promise.catch((error: Error) => error);

/**
 * The workers' lease, ms. A lease is renewed every third of it by a timer of this process, so a busy machine's stall
 * of the process longer than two thirds of it lets it run out while its worker lives: 300 ms did (a 200 ms stall, at
 * a load average of 17), and a held checkpoint was then an orphan. Only get() waits one out (a second).
 */
const LEASE = 1000;

describe.skipIf(!run).each<ClientKind>(['node-redis', 'ioredis'])('clusterCheckpoints() with %s', (kind) => {
  it('keeps what it is given under the prefix, in one hash slot per name, with a TTL; deleted, nothing is left', async () => {
    const { cluster: c, client, prefix } = await cluster({ kind });
    const store = clusterCheckpoints(c, { name: 'jobs', ttl: 60_000 });
    expect(await store.get('report:1')).toBeUndefined();
    await store.set('report:1', '{"v":1}');
    expect(await store.get('report:1')).toBe('{"v":1}');
    const { index, checkpoint: hash } = await checkpointKeys(prefix, 'jobs', 'report:1');
    expect(index).toBe(`${prefix}ckpt:{jobs}`);
    expect(hash.startsWith(`${prefix}ckpt:{jobs}:`)).toBe(true);
    expect(Number(await command(client, ['CLUSTER', 'KEYSLOT', hash]).catch(() => undefined) ?? 0)).toBe(Number(await command(client, ['CLUSTER', 'KEYSLOT', index]).catch(() => undefined) ?? 0));
    const pttl = Number(await command(client, ['PTTL', hash]));
    expect(pttl).toBeGreaterThan(50_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
    expect(String(await command(client, ['HGET', hash, 'k']))).toBe('report:1');
    await store.delete('report:1');
    expect(Number(await command(client, ['EXISTS', hash, index]))).toBe(0);
    expect(await store.get('report:1')).toBeUndefined();
  });

  it('one worker at a time: another’s write is refused while the lease runs, and one that held it and lost it is refused too', async () => {
    const a = clusterCheckpoints((await cluster({ kind })).cluster, { lease: LEASE });
    const b = clusterCheckpoints((await cluster({ kind })).cluster, { lease: LEASE });
    await a.set('k', 'one');
    const refused = await settle(b.set('k', 'two'));
    expect(isCheckpointLeaseError(refused) && refused.reason).toBe('held');
    // a stops renewing (released), b claims it and writes: a's next write is refused as lost, and its delete deletes nothing.
    await a.release('k');
    expect(await b.claim('k')).toBe(true);
    await b.set('k', 'two');
    expect(await b.get('k')).toBe('two');
    const lost = await settle(a.set('k', 'three'));
    expect(isCheckpointLeaseError(lost) && lost.reason).toBe('held');
    expect(await b.get('k')).toBe('two');
    await b.delete('k');
  });

  it('a worker whose lease was taken over while it held the checkpoint (it froze): its writes and delete are refused, the taker’s checkpoint kept', async () => {
    const a = clusterCheckpoints((await cluster({ kind })).cluster, { lease: LEASE });
    const b = clusterCheckpoints((await cluster({ kind })).cluster, { lease: LEASE });
    await a.set('k', 'one');
    // a "freezes": its lease is made to run out in Redis, while a still believes it holds k.
    const { client, prefix } = await cluster({ kind });
    const { checkpoint: hash } = await checkpointKeys(prefix, 'default', 'k');
    await command(client, ['HSET', hash, 'u', '0']);
    expect(await b.claim('k')).toBe(true);
    await b.set('k', 'two');
    const written = await settle(a.set('k', 'three'));
    expect(isCheckpointLeaseError(written) && written.reason).toBe('held');
    const deleted = await settle(a.delete('k'));
    expect(isCheckpointLeaseError(deleted) && deleted.reason).toBe('held');
    expect(await b.get('k')).toBe('two');
    // b finishes the call: a, back, may not write it again (its call would run a second time).
    await a.set('k2', 'x');
    await command(client, ['HSET', (await checkpointKeys(prefix, 'default', 'k2')).checkpoint, 'u', '0']);
    expect(await b.claim('k2')).toBe(true);
    await b.delete('k2');
    const gone = await settle(a.set('k2', 'y'));
    expect(isCheckpointLeaseError(gone) && gone.reason).toBe('lost');
    expect(await b.get('k2')).toBeUndefined();
  });

  it('orphans() lists the checkpoints whose lease ran out, and of 8 workers claiming one at once exactly one wins', async () => {
    const a = clusterCheckpoints((await cluster({ kind })).cluster, { lease: LEASE });
    await a.set('job:1', 'x');
    await a.set('job:2', 'y');
    const others = await Promise.all(Array.from({ length: 8 }, async () => clusterCheckpoints((await cluster({ kind })).cluster, { lease: LEASE })));
    expect(await others[0]!.orphans()).toEqual([]);
    await a.release('job:1');
    expect(await others[0]!.orphans()).toEqual(['job:1']);
    const wins = await Promise.all(others.map((store) => store.claim('job:1')));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await others[0]!.orphans()).toEqual([]);
    await a.release();
    expect(await others[0]!.orphans()).toEqual(['job:2']);
    expect(await others[1]!.claim('gone')).toBe(false);
  });

  it('a worker holding a checkpoint renews its lease while its call runs: after three leases no other can claim it, and it is no orphan', async () => {
    const a = clusterCheckpoints((await cluster({ kind })).cluster, { lease: LEASE });
    const b = clusterCheckpoints((await cluster({ kind })).cluster, { lease: LEASE });
    await a.set('running', 'x');
    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE));
    expect(await b.orphans()).toEqual([]);
    expect(await b.claim('running')).toBe(false);
    await a.delete('running');
    expect(await b.claim('running')).toBe(false);
  });

  it('get() waits out the lease of a worker that stopped renewing, and takes it; one still renewed is refused after one lease', async () => {
    const a = clusterCheckpoints((await cluster({ kind })).cluster, { lease: LEASE });
    const b = clusterCheckpoints((await cluster({ kind })).cluster, { lease: LEASE });
    await a.set('live', 'kept');
    const started = Date.now();
    const refused = await settle(b.get('live'));
    expect(isCheckpointLeaseError(refused) && refused.reason).toBe('held');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    // A dead worker: its lease is left to run out (no renewal), as after a SIGKILL.
    const { client, prefix } = await cluster({ kind });
    const { checkpoint: hash } = await checkpointKeys(prefix, 'default', 'dead');
    await command(client, ['HSET', hash, 'v', 'saved', 'k', 'dead', 'h', 'someone-gone', 'u', String(Date.now() + 300)]);
    expect(await b.get('dead')).toBe('saved');
    await b.set('dead', 'mine');
  });

  it('with Redis down, an operation under the store rejects before its start is sent; a value read back is untrusted', async () => {
    const server = await startServer((_req, res) => sendJson(res, 202, {}, { 'operation-location': '/ops/1' }));
    try {
      const { cluster: c, client, prefix } = await cluster({ kind });
      const store = clusterCheckpoints(c, { timeout: 500 });
      const { checkpoint: hash } = await checkpointKeys(prefix, 'default', 'tampered');
      await command(client, ['HSET', hash, 'v', '{"v":1,"kind":"operation","origin":"javascript:"}', 'k', 'tampered']);
      const tampered = await settle(pollOperation(`${server.url}/start`, { method: 'POST', operation: { idempotencyKey: true, resume: checkpoint({ store, key: 'tampered' }) } }));
      expect(isCheckpointRefusedError(tampered) && tampered.reason).toBe('malformed');
      await redis().kill();
      const down = await settle(pollOperation(`${server.url}/start`, { method: 'POST', operation: { idempotencyKey: true, resume: checkpoint({ store, key: 'down' }) } }));
      expect(down).toBeInstanceOf(Error);
      expect(server.requests).toHaveLength(0);
    } finally {
      await redis().start();
      await server.close();
    }
  });
});

describe.skipIf(!run)('clusterCheckpoints(): Redis lost in the middle of a call', () => {
  it('the writes after the start fail: the call rejects with the client’s error before its next request (one POST, no poll)', async () => {
    const server = await startServer((_req, res) => sendJson(res, 202, { status: 'Running' }, { 'operation-location': '/ops/1', 'retry-after': '1' }));
    try {
      const { cluster: c } = await cluster();
      const store = clusterCheckpoints(c, { timeout: 500 });
      const call = settle(
        pollOperation(`${server.url}/start`, {
          method: 'POST',
          operation: { idempotencyKey: true, resume: checkpoint({ store, key: 'mid' }) },
        }),
      );
      // Redis goes once the start has arrived: the monitor and the wait the answer asked for cannot be saved.
      while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await redis().kill();
      const error = await call;
      expect(error).toBeInstanceOf(Error);
      expect(isCheckpointLeaseError(error)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /start']);
    } finally {
      await redis().start();
      await server.close();
    }
  });
});

describe('clusterCheckpoints(): options', () => {
  const adapter = { send: () => Promise.reject(new Error('Redis is not connected')), subscribe: async () => undefined, unsubscribe: async () => undefined, close: async () => undefined };
  const thrown = (make: () => unknown): string => {
    try {
      make();
    } catch (error) {
      return (error as Error).message;
    }
    return 'nothing thrown';
  };

  it('names a bad or unknown option, or a cluster createCluster did not make; orphans() a bad limit; Redis down rejects every method with its error', async () => {
    const c = createCluster({ redis: adapter, recheck: 60_000 });
    expect(thrown(() => clusterCheckpoints({ ...c }))).toBe('Expected `cluster` to be a cluster made by createCluster()');
    expect(thrown(() => clusterCheckpoints(undefined as never))).toBe('Expected `cluster` to be a cluster made by createCluster()');
    expect(thrown(() => clusterCheckpoints(c, { lese: 1000 } as never))).toBe('Unknown option `lese`: did you mean `lease`?');
    expect(thrown(() => clusterCheckpoints(c, { lease: 10 }))).toBe('Expected `lease` to be a finite number >= 100');
    expect(thrown(() => clusterCheckpoints(c, { lease: 5000, ttl: 1000 }))).toBe('Expected `ttl` to be a finite number >= 5000');
    expect(thrown(() => clusterCheckpoints(c, { name: '' }))).toBe('Expected `name` to be a non-empty string');
    const store = clusterCheckpoints(c);
    await expect(store.orphans(0)).rejects.toThrow('Expected `limit` to be a positive integer');
    await expect(store.get('k')).rejects.toThrow('Redis is not connected');
    await expect(store.set('k', 'v')).rejects.toThrow('Redis is not connected');
    await expect(store.claim('k')).rejects.toThrow('Redis is not connected');
    await c.close();
  });
});
