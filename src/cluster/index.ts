// The public API of `pollite/cluster`: polite across processes and
// machines, through the user's own Redis client (an optional peer).

export { createCluster } from './create-cluster.js';
export type { Cluster } from './create-cluster.js';
export type { ClusterOptions, ClusterShareOptions, ClusterBudgetOptions, ClusterFetchOptions, ClusterStatus } from './cluster-options.js';
export { nodeRedis, ioRedis } from './redis-adapter.js';
export type { ClusterRedis, NodeRedisLike, NodeRedisClusterLike, NodeRedisSubscriber, IoRedisLike, IoRedisSubscriber } from './redis-adapter.js';
export { clusterCheckpoints } from './checkpoint-store.js';
export type { ClusterCheckpointOptions, ClusterCheckpointStore } from './checkpoint-store.js';
export { CheckpointLeaseError, isCheckpointLeaseError } from './checkpoint-lease-error.js';
export type { CheckpointLeaseReason } from './checkpoint-lease-error.js';
