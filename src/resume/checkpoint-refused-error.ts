import { hasErrorName, PolliteError } from '../errors/pollite-error.js';

/** Why a saved {@link Checkpoint} was not used. */
export type RefusedReason =
  /** Written by another release of pollite, in a format this one does not read (`v` is not 1). */
  | 'version'
  /** Not a checkpoint: not JSON, too large, a field of the wrong type or out of bounds, a URL that is not http or https. */
  | 'malformed'
  /** Saved for a request to another origin than this call's. */
  | 'origin'
  /** Saved for another `owner` (another user) than this call's. */
  | 'owner'
  /** Saved for another request (method or URL) or another kind of call than this one. */
  | 'request'
  /** A POST or PATCH was sent without an `Idempotency-Key` and its answer was lost: sent again, it could be done twice. */
  | 'sent-without-key';

/**
 * A saved checkpoint that a call refused to resume from, before sending
 * anything: `reason` says why. The checkpoint is left in its store (a
 * newer release may read it); `forget()` of the checkpoint, or the store's
 * `delete`, removes it to start afresh.
 */
export class CheckpointRefusedError extends PolliteError {
  /** Why the checkpoint was refused. */
  readonly reason: RefusedReason;
  /** The checkpoint's key in its store. */
  readonly key: string;

  constructor(reason: RefusedReason, key: string, detail: string) {
    super(`The checkpoint \`${key}\` was not resumed: ${detail}. Nothing was sent; forget() it to start afresh.`);
    this.name = 'CheckpointRefusedError';
    this.reason = reason;
    this.key = key;
  }
}

/** Realm-safe guard for {@link CheckpointRefusedError}. */
export const isCheckpointRefusedError = (error: unknown): error is CheckpointRefusedError => hasErrorName(error, 'CheckpointRefusedError');
