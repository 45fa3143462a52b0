import type { LoopHooks } from './hooks.js';

/** The call a checkpoint is asked about, before anything is sent: to tell its own saved state from another call's. */
export interface ResumeRequest {
  /** The method, upper-cased. */
  method: string;
  /** The absolute URL of the request (an operation's start, not its monitor). */
  url: string;
  /** The `Idempotency-Key` this run would send; `null` for none. */
  idempotencyKey: string | null;
  /** This run's own total deadline, ms from now; `undefined` for none. */
  timeout: number | undefined;
  /** The call's clock (its `env`), epoch ms: what saved times are compared with. */
  now: () => number;
}

/**
 * One run of a call under a checkpoint: what an earlier run of it left
 * (nothing, for a fresh run) and how this run keeps the checkpoint up to
 * date. Made by {@link RunCheckpoint.begin}.
 */
export interface ResumedRun {
  /** Failures in a row counted by the earlier run; 0 for a fresh one. */
  failures: number;
  /** The deadline, ms from now: what is left of the saved one (a resumed run keeps it), else this run's own. */
  timeout: number | undefined;
  /** The `Idempotency-Key` to send: the one an earlier run sent (never a new one), else this run's. */
  idempotencyKey: string | null;
  /** Joins the loop: holds until the saved wait is over, and saves the checkpoint at every wait. */
  hooks: LoopHooks;
  /**
   * Settles as `call` does, once the checkpoint is settled too: a call that
   * ended (resolved, or rejected for any reason but an abort by one of
   * `signals`) deletes it; an aborted one keeps it, to resume later.
   */
  settle<R>(call: Promise<R>, signals: ReadonlyArray<AbortSignal | undefined>): Promise<R>;
}

/**
 * What `fetchWithRetry` (`retry.resume`) and `pollOperation`
 * (`operation.resume`) ask of a checkpoint: implemented by `checkpoint()` of
 * `pollite/resume`, which documents what is saved and when.
 */
export interface RunCheckpoint {
  /**
   * Called once, before anything is sent: reads and checks the saved state
   * of this call and saves this run's start (a write's key before the write
   * is sent). Rejects, sending nothing, for a state it refuses (another
   * origin, owner or request, an unknown version, a write sent without a
   * key) and with a `TimeoutError` for one past its deadline.
   */
  begin(request: ResumeRequest): Promise<ResumedRun>;
}

