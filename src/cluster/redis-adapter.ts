/**
 * What pollite/cluster needs of a Redis client: commands, and pub/sub on a
 * connection of its own. {@link nodeRedis} and {@link ioRedis} make one of
 * a node-redis or ioredis client; implement it yourself for another client.
 */
export interface ClusterRedis {
  /**
   * Sends one command (`['EVALSHA', sha, '1', key, ...]`) and resolves with
   * its reply. Should reject at once while disconnected rather than queue
   * the command: a queued command would run late, after pollite gave up on it.
   */
  send(args: readonly string[]): Promise<unknown>;
  /** Calls `listener` with each message published on `channel` (on a subscriber connection of the adapter's own). */
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  /** Stops calling `listener` for `channel`. */
  unsubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  /** Calls `listener` when the connection drops (`false`) or is ready again (`true`); returns an unsubscribe function. */
  watch?(listener: (ready: boolean) => void): () => void;
  /** Closes what the adapter opened (its subscriber connection), never the client it was given. */
  close(): Promise<void>;
}

type Listener = (...args: never[]) => void;

/** The part of an event emitter the adapters use. */
interface Emitter {
  /** Calls `listener` on each `event` (`ready`, `error`, `end`...). */
  on(event: string, listener: Listener): unknown;
  /** Stops calling `listener` on `event`. */
  off(event: string, listener: Listener): unknown;
}

/** The part of a node-redis (v4, v5) client the adapter uses. */
export interface NodeRedisLike extends Emitter {
  /** True while the client is connected and ready for commands. */
  readonly isReady: boolean;
  /** Sends one command, such as `['EVALSHA', sha, '1', key]`, and resolves with its reply. */
  sendCommand(args: string[]): Promise<unknown>;
  /** A new client with the same options, for the subscriber connection. */
  duplicate(): NodeRedisSubscriber;
}

/** A node-redis subscriber connection, as `duplicate()` returns it. */
export interface NodeRedisSubscriber extends Emitter {
  /** Opens the connection. */
  connect(): Promise<unknown>;
  /** Calls `listener` with each message published on `channel`. */
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  /** Stops calling `listener` for `channel`. */
  unsubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  /** Closes the connection at once (node-redis v5). */
  destroy?(): void;
  /** Closes the connection (node-redis v4). */
  disconnect?(): Promise<unknown>;
}

/** The part of an ioredis (v5) client the adapter uses. */
export interface IoRedisLike extends Emitter {
  /** The connection's state: `ready` while commands can be sent. */
  readonly status: string;
  /** Sends one command, such as `call('EVALSHA', sha, '1', key)`, and resolves with its reply. */
  call(command: string, ...args: string[]): Promise<unknown>;
  /** A new client with the same options, for the subscriber connection. */
  duplicate(): IoRedisSubscriber;
}

/** An ioredis subscriber connection, as `duplicate()` returns it. */
export interface IoRedisSubscriber extends Emitter {
  /** Subscribes to `channel`; its messages arrive as `message` events. */
  subscribe(channel: string): Promise<unknown>;
  /** Unsubscribes from `channel`. */
  unsubscribe(channel: string): Promise<unknown>;
  /** Closes the connection. */
  disconnect(): void;
}

const notReady = (): Promise<never> => Promise.reject(new Error('Redis is not connected'));
const ignore = (): void => undefined;

/** Watches a client's connection through its `ready` event and the events that mean it dropped. */
function watcher(client: Emitter, down: readonly string[]): ClusterRedis['watch'] {
  return (listener) => {
    const up = (): void => listener(true);
    const lost = (): void => listener(false);
    client.on('ready', up);
    for (const event of down) client.on(event, lost);
    return () => {
      client.off('ready', up);
      for (const event of down) client.off(event, lost);
    };
  };
}

/** Runs subscription changes one after the other, so an unsubscribe never overtakes the subscribe it undoes. */
function serial(): (step: () => Promise<unknown>) => Promise<void> {
  let queue: Promise<unknown> = Promise.resolve();
  return (step) => {
    const run = queue.then(step);
    queue = run.catch(ignore);
    return run.then(ignore);
  };
}

/**
 * A {@link ClusterRedis} over a node-redis client (v4 or v5), connected by
 * you: commands go through it, pub/sub through a duplicate it opens on the
 * first subscription (closed by `cluster.close()`).
 *
 * @example
 * import { createClient } from 'redis';
 * const redis = await createClient({ url: process.env.REDIS_URL }).on('error', log).connect();
 * const cluster = createCluster({ redis: nodeRedis(redis) });
 */
export function nodeRedis(client: NodeRedisLike): ClusterRedis {
  let subscriber: { connection: NodeRedisSubscriber; connected: Promise<unknown> } | undefined;
  const wrapped = new Map<(message: string) => void, (message: string) => void>();
  const queue = serial();
  const connection = (): { connection: NodeRedisSubscriber; connected: Promise<unknown> } => {
    if (subscriber) return subscriber;
    const duplicate = client.duplicate();
    duplicate.on('error', ignore);
    return (subscriber = { connection: duplicate, connected: duplicate.connect() });
  };
  return {
    send: (args) => (client.isReady ? client.sendCommand([...args]) : notReady()),
    subscribe(channel, listener) {
      const own = (message: string): void => listener(message);
      wrapped.set(listener, own);
      const { connection: sub, connected } = connection();
      return queue(async () => {
        await connected;
        await sub.subscribe(channel, own);
      });
    },
    unsubscribe(channel, listener) {
      const own = wrapped.get(listener);
      wrapped.delete(listener);
      if (!own || !subscriber) return Promise.resolve();
      const { connection: sub, connected } = subscriber;
      return queue(async () => {
        await connected;
        await sub.unsubscribe(channel, own);
      });
    },
    watch: watcher(client, ['end', 'reconnecting']),
    async close() {
      const open = subscriber;
      subscriber = undefined;
      if (!open) return;
      if (open.connection.destroy) open.connection.destroy();
      else await open.connection.disconnect?.().catch(ignore);
    },
  };
}

/**
 * A {@link ClusterRedis} over an ioredis client (v5): commands go through
 * it, pub/sub through a duplicate it opens on the first subscription
 * (closed by `cluster.close()`).
 *
 * @example
 * import Redis from 'ioredis';
 * const cluster = createCluster({ redis: ioRedis(new Redis(process.env.REDIS_URL)) });
 */
export function ioRedis(client: IoRedisLike): ClusterRedis {
  let subscriber: IoRedisSubscriber | undefined;
  const listeners = new Map<string, Set<(message: string) => void>>();
  const queue = serial();
  const onMessage = (channel: string, message: string): void => {
    for (const listener of [...(listeners.get(channel) ?? [])]) listener(message);
  };
  const connection = (): IoRedisSubscriber => {
    if (subscriber) return subscriber;
    subscriber = client.duplicate();
    subscriber.on('error', ignore);
    subscriber.on('message', onMessage as Listener);
    return subscriber;
  };
  return {
    send: (args) => (client.status === 'ready' ? client.call(args[0]!, ...args.slice(1)) : notReady()),
    subscribe(channel, listener) {
      const set = listeners.get(channel) ?? new Set();
      const first = set.size === 0;
      set.add(listener);
      listeners.set(channel, set);
      const sub = connection();
      return first ? queue(() => sub.subscribe(channel)) : Promise.resolve();
    },
    unsubscribe(channel, listener) {
      const set = listeners.get(channel);
      if (!set?.delete(listener) || set.size > 0) return Promise.resolve();
      listeners.delete(channel);
      const sub = subscriber;
      return sub ? queue(() => sub.unsubscribe(channel)) : Promise.resolve();
    },
    watch: watcher(client, ['close', 'reconnecting', 'end']),
    async close() {
      subscriber?.disconnect();
      subscriber = undefined;
      listeners.clear();
    },
  };
}

const isFunction = (value: unknown): boolean => typeof value === 'function';

/** A node-redis or ioredis client made a {@link ClusterRedis}, or an adapter as is; a TypeError for anything else. */
export function redisAdapter(redis: unknown): ClusterRedis {
  const r = redis as Record<string, unknown> | null;
  if (r && typeof r === 'object') {
    if (typeof r.status === 'string' && isFunction(r.call) && isFunction(r.duplicate)) return ioRedis(redis as IoRedisLike);
    if (typeof r.isReady === 'boolean' && isFunction(r.sendCommand) && isFunction(r.duplicate)) return nodeRedis(redis as NodeRedisLike);
    if (isFunction(r.send) && isFunction(r.subscribe) && isFunction(r.unsubscribe) && isFunction(r.close)) return redis as ClusterRedis;
  }
  throw new TypeError('Expected `redis` to be a node-redis client, an ioredis client or a ClusterRedis adapter');
}
