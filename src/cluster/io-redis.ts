import { notReady, watcher, whenConnected, type Emitter } from './connecting.js';
import type { ClusterRedis } from './cluster-redis.js';
import { subscriptions, type SubscriberLink } from './subscriptions.js';

/** The part of an ioredis (v5) client the adapter uses: a `Redis` or a `Cluster`. */
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
  /** The connection's state: `ready` while it takes commands (a SUBSCRIBE). */
  readonly status?: string;
  /** Subscribes to `channel`; its messages arrive as `message` events. */
  subscribe(channel: string): Promise<unknown>;
  /** Unsubscribes from `channel`. */
  unsubscribe(channel: string): Promise<unknown>;
  /** Closes the connection. */
  disconnect(): void;
}

const ignore = (): void => undefined;
/** The states of an ioredis client on its way to its first `ready` (`wait`, a lazy client not asked to connect, is not). */
const STARTING = new Set(['connecting', 'connect', 'reconnecting']);
const CONNECTING = { up: 'ready', down: ['error', 'close', 'end'] };

/** The subscriber connection: a duplicate of the client (ioredis connects it by itself), one SUBSCRIBE a channel. */
function ioSubscriber(client: IoRedisLike): SubscriberLink {
  const sub = client.duplicate();
  const delivers = new Map<string, (message: string) => void>();
  sub.on('error', ignore);
  sub.on('message', ((channel: string, message: string) => delivers.get(channel)?.(message)) as (...args: never[]) => void);
  return {
    ready: () => (sub.status === undefined ? undefined : sub.status === 'ready'),
    onReady: (listener) => {
      sub.on('ready', listener);
      return () => void sub.off('ready', listener);
    },
    subscribe: async (channel, deliver) => {
      delivers.set(channel, deliver);
      try {
        await sub.subscribe(channel);
      } catch (error) {
        delivers.delete(channel);
        throw error;
      }
    },
    unsubscribe: async (channel) => {
      await sub.unsubscribe(channel);
      delivers.delete(channel);
    },
    close: async () => void sub.disconnect(),
  };
}

/**
 * A {@link ClusterRedis} over an ioredis client (v5), a `Redis` or a
 * `Cluster`: commands go through it, pub/sub through a duplicate it opens
 * on the first subscription (closed by `cluster.close()`), subscribed again
 * whenever it is ready after a refusal (`enableOfflineQueue: false`
 * refuses a SUBSCRIBE before then). A client still making its first
 * connection is waited for, up to the deadline.
 *
 * @example
 * import { Redis } from 'ioredis';
 * const cluster = createCluster({ redis: ioRedis(new Redis(process.env.REDIS_URL)) });
 */
export function ioRedis(client: IoRedisLike): ClusterRedis {
  let everReady = client.status === 'ready';
  return {
    ...subscriptions(() => ioSubscriber(client)),
    send(args, signal) {
      if (client.status === 'ready') {
        everReady = true;
        return client.call(args[0]!, ...args.slice(1));
      }
      if (everReady || !STARTING.has(client.status)) return notReady();
      return whenConnected(client, CONNECTING, signal).then(() => {
        everReady = true;
        return client.call(args[0]!, ...args.slice(1));
      });
    },
    watch: watcher(client, { up: 'ready', down: ['close', 'reconnecting', 'end'] }),
  };
}
