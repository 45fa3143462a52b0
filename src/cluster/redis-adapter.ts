import { ioRedis, type IoRedisLike } from './io-redis.js';
import { nodeRedis, type NodeRedisClusterLike, type NodeRedisLike } from './node-redis.js';

import type { ClusterRedis } from './cluster-redis.js';

export { ioRedis, nodeRedis };
export type { ClusterRedis };
export type { IoRedisLike, IoRedisSubscriber } from './io-redis.js';
export type { NodeRedisClusterLike, NodeRedisLike, NodeRedisSubscriber } from './node-redis.js';

const isFunction = (value: unknown): boolean => typeof value === 'function';

/**
 * A node-redis or ioredis client (single server or Redis Cluster) made a
 * {@link ClusterRedis}, or an adapter as is; a TypeError for anything else.
 */
export function redisAdapter(redis: unknown): ClusterRedis {
  const r = redis as Record<string, unknown> | null;
  if (r && typeof r === 'object') {
    // ioredis's Redis and Cluster alike.
    if (typeof r.status === 'string' && isFunction(r.call) && isFunction(r.duplicate)) return ioRedis(redis as IoRedisLike);
    if (isFunction(r.sendCommand) && isFunction(r.duplicate)) {
      if (typeof r.isReady === 'boolean') return nodeRedis(redis as NodeRedisLike);
      // node-redis's createCluster(): no isReady, its nodes' clients have one each.
      if (typeof r.isOpen === 'boolean' && Array.isArray(r.masters)) return nodeRedis(redis as NodeRedisClusterLike);
    }
    if (isFunction(r.send) && isFunction(r.subscribe) && isFunction(r.unsubscribe) && isFunction(r.close)) return redis as ClusterRedis;
  }
  throw new TypeError('Expected `redis` to be a node-redis client, an ioredis client or a ClusterRedis adapter');
}
