import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ioRedis, nodeRedis, type IoRedisLike, type NodeRedisClusterLike, type NodeRedisLike } from '../../src/cluster/index.js';
import { redisAdapter } from '../../src/cluster/redis-adapter.js';

// The adapters over scripted clients: which event means what is the
// contract (a real client emits several of them at once), how a client
// still connecting is waited for, how a cluster client is told apart and
// routed, and the client detection. adapter-local.test.ts and
// subscriber.test.ts run them over real clients.

afterEach(() => {
  vi.useRealTimers();
});

/** A scripted client: an event emitter with a client's members, whose duplicate (the subscriber) is kept for the test. */
function scriptedClient(kind: 'node-redis' | 'ioredis') {
  const duplicates: EventEmitter[] = [];
  /** What the subscriber connections were asked, in order. */
  const asked: string[] = [];
  const duplicate = (): EventEmitter => {
    const sub = Object.assign(new EventEmitter(), {
      connect: async () => undefined,
      subscribe: async (channel: string) => void asked.push(`subscribe ${channel}`),
      unsubscribe: async (channel: string) => void asked.push(`unsubscribe ${channel}`),
      destroy: () => undefined,
      disconnect: () => undefined,
    });
    duplicates.push(sub);
    return sub;
  };
  const client =
    kind === 'ioredis'
      ? Object.assign(new EventEmitter(), { status: 'ready', call: async () => 'OK', duplicate })
      : Object.assign(new EventEmitter(), { isReady: true, sendCommand: async () => 'OK', duplicate });
  return { client, adapter: kind === 'ioredis' ? ioRedis(client as unknown as IoRedisLike) : nodeRedis(client as unknown as NodeRedisLike), duplicates, asked };
}

describe('the adapters\' connection watcher and subscriber errors (scripted clients)', () => {
  it.each([
    ['node-redis', 'end'],
    ['node-redis', 'reconnecting'],
    ['ioredis', 'close'],
    ['ioredis', 'reconnecting'],
    ['ioredis', 'end'],
  ] as const)("%s: '%s' alone says the connection dropped, 'ready' that it is back; the unsubscribe takes every listener off", (kind, event) => {
    const { client, adapter } = scriptedClient(kind);
    const told: boolean[] = [];
    const unwatch = adapter.watch!((ready) => void told.push(ready));
    client.emit(event);
    client.emit('ready');
    expect(told).toEqual([false, true]);
    unwatch();
    expect(client.eventNames()).toEqual([]);
    client.emit(event);
    client.emit('ready');
    expect(told).toEqual([false, true]);
  });

  it.each(['node-redis', 'ioredis'] as const)("%s: the subscriber connection's errors are handled (the client retries; an unhandled 'error' would throw)", async (kind) => {
    const { adapter, duplicates } = scriptedClient(kind);
    await adapter.subscribe('ch', () => undefined);
    expect(duplicates).toHaveLength(1);
    expect(duplicates[0]!.emit('error', new Error('ECONNRESET'))).toBe(true);
  });
});

describe('ioRedis(): one subscription a channel (scripted client)', () => {
  it('subscribes a channel for its first listener only, and unsubscribes it when its last leaves', async () => {
    const { adapter, asked } = scriptedClient('ioredis');
    const [a, b] = [(): void => undefined, (): void => undefined];
    await adapter.subscribe('ch', a);
    await adapter.subscribe('ch', b);
    await adapter.unsubscribe('ch', a);
    expect(asked).toEqual(['subscribe ch']);
    await adapter.unsubscribe('ch', b);
    expect(asked).toEqual(['subscribe ch', 'unsubscribe ch']);
  });
});

describe('redisAdapter(): which client it was given', () => {
  const send = async (): Promise<unknown> => 'OK';
  const member = async (): Promise<void> => undefined;
  const message = 'Expected `redis` to be a node-redis client, an ioredis client or a ClusterRedis adapter';

  it('takes an adapter as is, even one with members of a client besides (no isReady with sendCommand, no status with call)', () => {
    const withNodeRedisMembers = { send, subscribe: member, unsubscribe: member, close: member, sendCommand: send, duplicate: () => undefined };
    const withIoRedisMembers = { send, subscribe: member, unsubscribe: member, close: member, call: send, duplicate: () => undefined };
    const onlyDuplicate = { send, subscribe: member, unsubscribe: member, close: member, duplicate: () => undefined };
    expect(redisAdapter(withNodeRedisMembers)).toBe(withNodeRedisMembers);
    expect(redisAdapter(withIoRedisMembers)).toBe(withIoRedisMembers);
    expect(redisAdapter(onlyDuplicate)).toBe(onlyDuplicate);
  });

  it('refuses a function with the members of an adapter, and an object with only some of them, with the exact TypeError', () => {
    const fn = Object.assign(() => undefined, { send, subscribe: member, unsubscribe: member, close: member });
    for (const redis of [fn, { close: member }, { unsubscribe: member, close: member }, { subscribe: member, unsubscribe: member, close: member }, { send, subscribe: member, unsubscribe: member }]) {
      expect(() => redisAdapter(redis)).toThrow(new TypeError(message));
    }
  });
});

const turns = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

/** A node-redis client still making its first connection (`connect()` called, not ready yet). */
function connectingNodeRedis() {
  const sent: string[][] = [];
  const client = Object.assign(new EventEmitter(), {
    isReady: false,
    isOpen: true,
    sendCommand: async (args: string[]) => (sent.push(args), 'OK'),
    duplicate: () => undefined,
  });
  return { client, sent, adapter: nodeRedis(client as unknown as NodeRedisLike) };
}

describe('a client handed over while it makes its first connection (scripted)', () => {
  it("node-redis: a command waits for 'ready' and is sent then; the listeners it added are gone", async () => {
    const { client, sent, adapter } = connectingNodeRedis();
    const reply = adapter.send(['PING']);
    await turns();
    expect(sent).toEqual([]);
    client.isReady = true;
    client.emit('ready');
    expect(await reply).toBe('OK');
    expect(sent).toEqual([['PING']]);
    expect(client.eventNames()).toEqual([]);
  });

  it.each(['error', 'end', 'reconnecting'])("node-redis: '%s' while it waits (the first connection failed) rejects it, sending nothing", async (event) => {
    const { client, sent, adapter } = connectingNodeRedis();
    const reply = adapter.send(['PING']);
    client.emit(event, new Error('ECONNREFUSED'));
    await expect(reply).rejects.toThrow(new Error('Redis is not connected'));
    client.emit('ready');
    await turns();
    expect([sent, client.eventNames()]).toEqual([[], []]);
  });

  it('node-redis: the deadline passing (its signal) rejects it, and it is never sent, even when the client is ready later', async () => {
    const { client, sent, adapter } = connectingNodeRedis();
    const expired = new AbortController();
    const reply = adapter.send(['PING'], expired.signal);
    expired.abort();
    await expect(reply).rejects.toThrow(new Error('Redis is not connected'));
    await expect(adapter.send(['PING'], expired.signal)).rejects.toThrow(new Error('Redis is not connected'));
    client.isReady = true;
    client.emit('ready');
    await turns();
    expect([sent, client.eventNames()]).toEqual([[], []]);
  });

  it('node-redis: once it was ready (seen by a command, or by a wait), a client that is not fails at once (it dropped: no wait); one never opened fails at once too', async () => {
    const { client, sent, adapter } = connectingNodeRedis();
    client.isReady = true;
    expect(await adapter.send(['PING'])).toBe('OK');
    client.isReady = false;
    await expect(adapter.send(['PING'])).rejects.toThrow(new Error('Redis is not connected'));
    expect([sent.length, client.eventNames()]).toEqual([1, []]);
    const waited = connectingNodeRedis();
    const first = waited.adapter.send(['PING']);
    waited.client.isReady = true;
    waited.client.emit('ready');
    await first;
    waited.client.isReady = false;
    await expect(waited.adapter.send(['PING'])).rejects.toThrow(new Error('Redis is not connected'));
    const closed = Object.assign(new EventEmitter(), { isReady: false, isOpen: false, sendCommand: async () => 'OK', duplicate: () => undefined });
    await expect(nodeRedis(closed as unknown as NodeRedisLike).send(['PING'])).rejects.toThrow(new Error('Redis is not connected'));
    expect(closed.eventNames()).toEqual([]);
  });

  it.each(['connecting', 'connect', 'reconnecting'])("ioredis, status '%s' before its first 'ready': a command waits for it", async (status) => {
    const calls: string[][] = [];
    const client = Object.assign(new EventEmitter(), { status, call: async (...args: string[]) => (calls.push(args), 'OK'), duplicate: () => undefined });
    const adapter = ioRedis(client as unknown as IoRedisLike);
    const reply = adapter.send(['EVALSHA', 'abc', '0']);
    await turns();
    expect(calls).toEqual([]);
    client.status = 'ready';
    client.emit('ready');
    expect(await reply).toBe('OK');
    expect([calls, client.eventNames()]).toEqual([[['EVALSHA', 'abc', '0']], []]);
    // Ready once: a drop later fails at once.
    client.status = 'reconnecting';
    await expect(adapter.send(['PING'])).rejects.toThrow(new Error('Redis is not connected'));
  });

  it.each(['error', 'close', 'end'])("ioredis: '%s' while it waits rejects it, sending nothing", async (event) => {
    const calls: string[][] = [];
    const client = Object.assign(new EventEmitter(), { status: 'connecting', call: async (...args: string[]) => (calls.push(args), 'OK'), duplicate: () => undefined });
    const reply = ioRedis(client as unknown as IoRedisLike).send(['PING']);
    client.emit(event, new Error('ECONNREFUSED'));
    await expect(reply).rejects.toThrow(new Error('Redis is not connected'));
    expect([calls, client.eventNames()]).toEqual([[], []]);
  });

  it.each(['wait', 'end', 'close'])("ioredis, status '%s' (lazy, or closed): fails at once", async (status) => {
    const client = Object.assign(new EventEmitter(), { status, call: async () => 'OK', duplicate: () => undefined });
    await expect(ioRedis(client as unknown as IoRedisLike).send(['PING'])).rejects.toThrow(new Error('Redis is not connected'));
    expect(client.eventNames()).toEqual([]);
  });
});

/** A node-redis `createCluster()` client: no isReady, `masters` once it has discovered the cluster. */
function scriptedNodeCluster(masters: unknown[] = []) {
  const sent: unknown[][] = [];
  const subscriber = Object.assign(new EventEmitter(), {
    connects: 0,
    fail: false,
    asked: [] as string[],
    connect: async () => {
      subscriber.connects += 1;
      if (subscriber.fail) throw new Error('None of the root nodes is available');
    },
    subscribe: async (channel: string) => void subscriber.asked.push(`subscribe ${channel}`),
    unsubscribe: async (channel: string) => void subscriber.asked.push(`unsubscribe ${channel}`),
    destroy: () => void subscriber.asked.push('destroy'),
  });
  const client = Object.assign(new EventEmitter(), {
    isOpen: true,
    masters,
    sendCommand: async (...args: unknown[]) => (sent.push(args), 'OK'),
    duplicate: () => subscriber,
  });
  return { client, sent, subscriber };
}

describe('node-redis cluster clients (scripted)', () => {
  it("are detected: each script goes to the node of its first key, with the deadline's signal; any other command to any node", async () => {
    const { client, sent } = scriptedNodeCluster([{}]);
    const adapter = redisAdapter(client);
    const signal = new AbortController().signal;
    await adapter.send(['EVALSHA', 'abc', '2', 'k1', 'k2', 'arg'], signal);
    await adapter.send(['EVAL', 'return 1', '0', 'arg']);
    await adapter.send(['PING']);
    expect(sent).toEqual([
      ['k1', false, ['EVALSHA', 'abc', '2', 'k1', 'k2', 'arg'], { abortSignal: signal, signal }],
      [undefined, false, ['EVAL', 'return 1', '0', 'arg'], undefined],
      [undefined, false, ['PING'], undefined],
    ]);
    expect(adapter.watch).toBeUndefined();
  });

  it("one still discovering the cluster: a command waits for its 'connect'; 'error' or the deadline rejects it; a closed one fails at once", async () => {
    const { client, sent } = scriptedNodeCluster();
    const adapter = nodeRedis(client as unknown as NodeRedisClusterLike);
    const reply = adapter.send(['PING']);
    await turns();
    expect(sent).toEqual([]);
    client.masters.push({});
    client.emit('connect');
    expect(await reply).toBe('OK');
    client.masters.length = 0;
    const failed = adapter.send(['PING']);
    client.emit('error', new Error('down'));
    await expect(failed).rejects.toThrow(new Error('Redis is not connected'));
    const expired = new AbortController();
    const late = adapter.send(['PING'], expired.signal);
    expired.abort();
    await expect(late).rejects.toThrow(new Error('Redis is not connected'));
    client.isOpen = false;
    await expect(adapter.send(['PING'])).rejects.toThrow(new Error('Redis is not connected'));
    expect([sent.length, client.eventNames()]).toEqual([1, []]);
  });

  it('pub/sub on a duplicate cluster client, connected before its first SUBSCRIBE; a failed connection is made again for the next', async () => {
    vi.useFakeTimers();
    const { client, subscriber } = scriptedNodeCluster([{}]);
    subscriber.fail = true;
    const adapter = nodeRedis(client as unknown as NodeRedisClusterLike);
    void adapter.subscribe('a', () => undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(subscriber.asked).toEqual([]);
    subscriber.fail = false;
    // The refused subscription is tried again a pause later: the connection is made again first.
    await vi.advanceTimersByTimeAsync(1000);
    expect(subscriber.asked).toEqual(['subscribe a']);
    await adapter.subscribe('b', () => undefined);
    expect(subscriber.asked).toEqual(['subscribe a', 'subscribe b']);
    expect(subscriber.connects).toBe(3);
    await adapter.close();
    expect(subscriber.asked.at(-1)).toBe('destroy');
  });

  it('redisAdapter() wants both isOpen and masters of a cluster client', () => {
    const member = async (): Promise<unknown> => 'OK';
    for (const redis of [
      { isOpen: true, sendCommand: member, duplicate: member },
      { masters: [], sendCommand: member, duplicate: member },
      { isOpen: 'yes', masters: [], sendCommand: member, duplicate: member },
      { isOpen: true, masters: {}, sendCommand: member, duplicate: member },
      { isOpen: true, masters: [], duplicate: member },
      { isOpen: true, masters: [], sendCommand: member },
    ]) {
      expect(() => redisAdapter(redis)).toThrow(TypeError);
    }
  });
});

describe('mutants of the Redis Cluster routing and of ioredis (issue 38, after the Stryker run)', () => {
  it('an EVAL with keys goes to the node of its first key, as an EVALSHA does', async () => {
    const { client, sent } = scriptedNodeCluster([{}]);
    await redisAdapter(client).send(['EVAL', 'return 1', '1', 'k1', 'arg']);
    expect(sent).toEqual([['k1', false, ['EVAL', 'return 1', '1', 'k1', 'arg'], undefined]]);
  });

  it('ioredis: ready when handed over, then dropped before its first command: fails at once; ready at a command, then dropped: the same', async () => {
    const ready = Object.assign(new EventEmitter(), { status: 'ready', call: async () => 'OK', duplicate: () => undefined });
    const adapter = ioRedis(ready as unknown as IoRedisLike);
    ready.status = 'reconnecting';
    await expect(adapter.send(['PING'])).rejects.toThrow(new Error('Redis is not connected'));
    const later = Object.assign(new EventEmitter(), { status: 'connecting', call: async () => 'OK', duplicate: () => undefined });
    const other = ioRedis(later as unknown as IoRedisLike);
    later.status = 'ready';
    expect(await other.send(['PING'])).toBe('OK');
    later.status = 'reconnecting';
    await expect(other.send(['PING'])).rejects.toThrow(new Error('Redis is not connected'));
    expect(later.eventNames()).toEqual([]);
  });

  it('ioredis: a second channel on a subscriber that is ready is subscribed at once; a refused SUBSCRIBE is made again, and its messages delivered', async () => {
    vi.useFakeTimers();
    const asked: string[] = [];
    let refuse = false;
    const sub = Object.assign(new EventEmitter(), {
      status: 'connecting',
      subscribe: async (channel: string) => {
        asked.push(`subscribe ${channel}`);
        if (refuse) throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
      },
      unsubscribe: async (channel: string) => void asked.push(`unsubscribe ${channel}`),
      disconnect: () => undefined,
    });
    const client = Object.assign(new EventEmitter(), { status: 'ready', call: async () => 'OK', duplicate: () => sub });
    const adapter = ioRedis(client as unknown as IoRedisLike);
    const heard: string[] = [];
    const first = adapter.subscribe('a', (m) => void heard.push(`a:${m}`));
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toEqual([]);
    sub.status = 'ready';
    sub.emit('ready');
    await first;
    await adapter.subscribe('b', (m) => void heard.push(`b:${m}`));
    expect(asked).toEqual(['subscribe a', 'subscribe b']);
    refuse = true;
    void adapter.subscribe('c', (m) => void heard.push(`c:${m}`));
    await vi.advanceTimersByTimeAsync(0);
    // Refused: not delivered to until it is made.
    sub.emit('message', 'c', 'early');
    refuse = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(asked).toEqual(['subscribe a', 'subscribe b', 'subscribe c', 'subscribe c']);
    sub.emit('message', 'c', 'one');
    sub.emit('message', 'a', 'two');
    expect(heard).toEqual(['c:one', 'a:two']);
  });
});
