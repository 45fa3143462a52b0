import { notReady, watcher, whenConnected, type Emitter } from './connecting.js';
import type { ClusterRedis } from './cluster-redis.js';
import { subscriptions, type SubscriberLink } from './subscriptions.js';

/** The part of a node-redis (v4, v5) client the adapter uses. */
export interface NodeRedisLike extends Emitter {
  /** True while the client is connected and ready for commands. */
  readonly isReady: boolean;
  /** True from `connect()` on (connecting, ready or reconnecting) until it is closed. */
  readonly isOpen?: boolean;
  /** Sends one command, such as `['EVALSHA', sha, '1', key]`, and resolves with its reply. */
  sendCommand(args: string[]): Promise<unknown>;
  /** A new client with the same options, for the subscriber connection. */
  duplicate(): NodeRedisSubscriber;
}

/** The part of a node-redis (v4, v5) Redis Cluster client, `createCluster()`'s, the adapter uses. */
export interface NodeRedisClusterLike extends Emitter {
  /** True from `connect()` on until it is closed. */
  readonly isOpen: boolean;
  /** The cluster's masters, once it has discovered them. */
  readonly masters: readonly unknown[];
  /** Sends one command to the node of `firstKey`'s slot (a random one when undefined). */
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[], options?: object): Promise<unknown>;
  /** A new cluster client with the same options, for pub/sub. */
  duplicate(): NodeRedisSubscriber;
}

/** A node-redis subscriber connection, as `duplicate()` returns it (of a client or of a cluster client). */
export interface NodeRedisSubscriber extends Emitter {
  /** Whether it is ready (a client's; a cluster client has none). */
  readonly isReady?: boolean;
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

const ignore = (): void => undefined;
/** What a node-redis client emits: `ready`, and when a connection fails or drops. */
const CONNECTING = { up: 'ready', down: ['error', 'end', 'reconnecting'] };
/** What a node-redis cluster client emits once it has discovered the cluster, and when that failed. */
const CLUSTER_CONNECTING = { up: 'connect', down: ['error', 'disconnect'] };

/** The key a command is routed by in a Redis Cluster: a script's first key (none: any node). */
const firstKey = (args: readonly string[]): string | undefined =>
  (args[0] === 'EVAL' || args[0] === 'EVALSHA') && Number(args[2]) > 0 ? args[3] : undefined;

/** The subscriber connection: a duplicate of the client, connected (again, for a cluster client whose first connection failed) before each subscription. */
function nodeSubscriber(client: { duplicate(): NodeRedisSubscriber }): SubscriberLink {
  const sub = client.duplicate();
  sub.on('error', ignore);
  let connecting: Promise<unknown> | undefined;
  const connect = (): Promise<unknown> =>
    (connecting ??= sub.connect().catch((error: unknown) => {
      connecting = undefined;
      throw error;
    }));
  void connect().catch(ignore);
  return {
    ready: () => sub.isReady,
    onReady:
      typeof sub.isReady === 'boolean'
        ? (listener) => {
            sub.on('ready', listener);
            return () => void sub.off('ready', listener);
          }
        : undefined,
    subscribe: async (channel, deliver) => {
      await connect();
      await sub.subscribe(channel, deliver);
    },
    unsubscribe: (channel, deliver) => sub.unsubscribe(channel, deliver),
    close: async () => {
      if (sub.destroy) sub.destroy();
      else await sub.disconnect?.().catch(ignore);
    },
  };
}

/**
 * A {@link ClusterRedis} over a node-redis client (v4 or v5): a client of
 * `createClient()` or of `createCluster()` (Redis Cluster, each script sent
 * to the node of its keys). Commands go through it; pub/sub through a
 * duplicate it opens on the first subscription (closed by
 * `cluster.close()`), subscribed again whenever it is ready after a
 * refusal. A client still making its first connection is waited for, up to
 * the deadline.
 *
 * @example
 * import { createClient } from 'redis';
 * const redis = await createClient({ url: process.env.REDIS_URL }).on('error', log).connect();
 * const cluster = createCluster({ redis: nodeRedis(redis) });
 */
export function nodeRedis(client: NodeRedisLike | NodeRedisClusterLike): ClusterRedis {
  const pubsub = subscriptions(() => nodeSubscriber(client));
  if (!('isReady' in client) || typeof client.isReady !== 'boolean') return { ...pubsub, send: clusterSender(client as NodeRedisClusterLike) };
  const single = client;
  let everReady = single.isReady;
  return {
    ...pubsub,
    send(args, signal) {
      if (single.isReady) {
        everReady = true;
        return single.sendCommand([...args]);
      }
      if (everReady || !single.isOpen) return notReady();
      return whenConnected(single, CONNECTING, signal).then(() => {
        everReady = true;
        return single.sendCommand([...args]);
      });
    },
    watch: watcher(single, { up: 'ready', down: ['end', 'reconnecting'] }),
  };
}

/** Sends through a node-redis cluster client, once it has discovered the cluster; the deadline's signal drops a command its node has queued. */
function clusterSender(cluster: NodeRedisClusterLike): ClusterRedis['send'] {
  return async (args, signal) => {
    if (!cluster.isOpen) return notReady();
    if (cluster.masters.length === 0) await whenConnected(cluster, CLUSTER_CONNECTING, signal);
    return cluster.sendCommand(firstKey(args), false, [...args], signal && { abortSignal: signal, signal });
  };
}
