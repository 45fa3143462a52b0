import type { ClusterRedis } from './cluster-redis.js';

/**
 * What the cluster's separate exports (`clusterCheckpoints`) need of a
 * cluster, kept off its public face: they take the cluster object and find
 * these by it, so a bundle that does not import them carries none of
 * their code.
 */
export interface ClusterInternals {
  /** The cluster's Redis, adapted. */
  redis: ClusterRedis;
  /** The prefix of its keys. */
  prefix: string;
}

/** Each cluster's internals, by the object `createCluster` made. */
export const clusterInternals = new WeakMap<object, ClusterInternals>();
