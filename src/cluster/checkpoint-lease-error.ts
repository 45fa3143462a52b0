import { PolliteError } from '../index.js';

/** Why a {@link ClusterCheckpointStore} refused to open, write or delete a checkpoint. */
export type CheckpointLeaseReason =
  /** Another worker holds the checkpoint's lease: it runs the call (or wrote the checkpoint since this call read it). */
  | 'held'
  /** This worker held the lease and does no longer: another worker took the call over, or the checkpoint is gone from Redis (finished elsewhere, expired, flushed). */
  | 'lost';

/**
 * A checkpoint of a Redis store (`clusterCheckpoints()`) that this worker
 * may not open or write, because another worker runs its call: the call
 * rejects with it, before sending anything more. `reason` says why.
 */
export class CheckpointLeaseError extends PolliteError {
  /** Why the store refused. */
  readonly reason: CheckpointLeaseReason;
  /** The checkpoint's key. */
  readonly key: string;

  constructor(reason: CheckpointLeaseReason, key: string, detail: string) {
    super(`The checkpoint \`${key}\` ${detail}.`);
    this.name = 'CheckpointLeaseError';
    this.reason = reason;
    this.key = key;
  }
}

/** Realm-safe guard for {@link CheckpointLeaseError}. */
export const isCheckpointLeaseError = (error: unknown): error is CheckpointLeaseError =>
  typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'CheckpointLeaseError';
