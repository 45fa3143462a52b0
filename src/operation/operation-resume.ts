import type { WaitSource } from '../http/server-wait.js';
import type { ResumedRun, ResumeRequest } from '../engine/resume-point.js';
import type { PollFeature } from '../poll/feature.js';

/** An operation's status monitor as a checkpoint keeps it: where to poll, and what finds the result once it is over. */
export interface SavedMonitor {
  /** The monitor's URL (http or https). */
  url: string;
  /** What named it: a header, or `option` (`operationUrl`). */
  via: 'operation-location' | 'azure-asyncoperation' | 'location' | 'option';
  /** The start answer's `Location`, resolved, if it had one. */
  location: string | undefined;
}

/** One run of an operation under a checkpoint: a fresh start, or an earlier run's start or monitor to go on with. */
export interface ResumedOperation extends ResumedRun {
  /** The monitor an earlier run was polling: the start is not sent again. `undefined`: the start is (still) to be sent. */
  monitor: SavedMonitor | undefined;
  /** The start named `monitor`; its first poll is due no sooner than `notBefore` (epoch ms: the start answer's wait, which the server's `source` asked for, if it did). */
  polling(monitor: SavedMonitor, notBefore: number, source?: WaitSource): Promise<void>;
  /** Joins the monitor's polls: conditional on the saved validators, with the saved failures and wait; saves at every wait. */
  feature: PollFeature;
}

/**
 * What `pollOperation` (`operation.resume`) asks of a checkpoint:
 * implemented by `checkpoint()` of `pollite/resume`.
 */
export interface OperationCheckpoint {
  /**
   * Called once, before anything is sent: reads and checks the saved state
   * of this operation and saves this run's start. Rejects, sending nothing,
   * for a state it refuses and with a `TimeoutError` for one past its
   * deadline.
   */
  beginOperation(request: ResumeRequest): Promise<ResumedOperation>;
}
