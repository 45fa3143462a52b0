import { describe, expectTypeOf, it } from 'vitest';
import { clusterCheckpoints, createCluster, isCheckpointLeaseError, type Cluster, type CheckpointLeaseError, type CheckpointLeaseReason, type ClusterCheckpointStore } from '../../src/cluster/index.js';
import { checkpoint, type CheckpointStore } from '../../src/resume/index.js';

describe('the types of clusterCheckpoints()', () => {
  it('is a CheckpointStore for checkpoint(), with orphans, claim and release; its error narrows', () => {
    const cluster = createCluster({ redis: {} });
    const store = clusterCheckpoints(cluster, { name: 'reports', lease: 15_000, ttl: 86_400_000, timeout: 5_000 });
    expectTypeOf(store).toEqualTypeOf<ClusterCheckpointStore>();
    expectTypeOf(store).toMatchTypeOf<CheckpointStore>();
    expectTypeOf(checkpoint({ store, key: 'report:2025-01' }).forget).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(store.get).returns.toEqualTypeOf<Promise<string | undefined>>();
    expectTypeOf(store.orphans).returns.toEqualTypeOf<Promise<string[]>>();
    expectTypeOf(store.claim).returns.toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(store.release).parameter(0).toEqualTypeOf<string | undefined>();
    const error: unknown = new Error('x');
    if (isCheckpointLeaseError(error)) {
      expectTypeOf(error).toEqualTypeOf<CheckpointLeaseError>();
      expectTypeOf(error.reason).toEqualTypeOf<CheckpointLeaseReason>();
    }
    // @ts-expect-error: an unknown option
    clusterCheckpoints(cluster, { lese: 1 });
    // @ts-expect-error: a cluster is required
    clusterCheckpoints();
    expectTypeOf(clusterCheckpoints).parameter(0).toEqualTypeOf<Cluster>();
    // The cluster itself has no checkpoint method: the store is a separate export, so a bundle without it carries none of its code.
    expectTypeOf<Cluster>().not.toHaveProperty('checkpoints');
  });
});
