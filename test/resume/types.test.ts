import { describe, expectTypeOf, it } from 'vitest';
import { fetchWithRetry, poll } from '../../src/index.js';
import type { PollFeature, RunCheckpoint } from '../../src/kit/index.js';
import { pollOperation, type OperationCheckpoint } from '../../src/operation/index.js';
import { checkpoint, memoryStore, readCheckpoint, webStorage, type Checkpoint, type CheckpointStore, type Checkpointed, type RefusedReason } from '../../src/resume/index.js';
import { fileStore } from '../../src/resume/node.js';

describe('the types of pollite/resume', () => {
  it('one checkpoint serves poll (use), pollOperation (operation.resume) and fetchWithRetry (retry.resume)', () => {
    const job = checkpoint({ store: memoryStore(), key: 'job', owner: 'u1', data: true });
    expectTypeOf(job).toEqualTypeOf<Checkpointed>();
    expectTypeOf(job).toMatchTypeOf<PollFeature>();
    expectTypeOf(job).toMatchTypeOf<RunCheckpoint>();
    expectTypeOf(job).toMatchTypeOf<OperationCheckpoint>();
    expectTypeOf(job.forget).returns.toEqualTypeOf<Promise<void>>();
    const run = (): unknown => [
      poll('https://api.example/jobs/1', { use: [job] }),
      pollOperation('https://api.example/reports', { method: 'POST', operation: { resume: job } }),
      fetchWithRetry('https://api.example/orders', { method: 'POST', retry: { idempotencyKey: true, resume: job } }),
    ];
    expectTypeOf(run).toBeFunction();
  });

  it('stores: sync or async, three functions', () => {
    expectTypeOf(webStorage).returns.toEqualTypeOf<CheckpointStore>();
    expectTypeOf(fileStore).returns.toEqualTypeOf<CheckpointStore>();
    const own: CheckpointStore = { get: async () => null, set: () => undefined, delete: async () => undefined };
    expectTypeOf(own).toMatchTypeOf<CheckpointStore>();
    // @ts-expect-error: a store keeps strings (a checkpoint's JSON), not objects
    const wrong: CheckpointStore = { get: () => ({}), set: () => undefined, delete: () => undefined };
    void wrong;
  });

  it('readCheckpoint gives a Checkpoint of format 1; a refusal names its reason', () => {
    expectTypeOf(readCheckpoint).returns.toEqualTypeOf<Checkpoint>();
    expectTypeOf<Checkpoint['v']>().toEqualTypeOf<1>();
    expectTypeOf<RefusedReason>().toEqualTypeOf<'version' | 'malformed' | 'origin' | 'owner' | 'request' | 'sent-without-key'>();
    // @ts-expect-error: the key is required
    checkpoint({ store: memoryStore() });
  });
});
