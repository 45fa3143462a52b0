import type { Wake } from '../env/wait.js';
import type { HeaderReader } from '../http/parse-retry-after.js';
import type { RetryDecision } from '../policy/retry-decision.js';
import type { PollEvent } from './events.js';

/** What the loop tells its features about each answer. */
export interface PollAnswer {
  /** The HTTP status; 0 for a network failure, a timed-out request or a value that is not a response. */
  status: number;
  /** The answer's headers; empty for a network failure. */
  headers: HeaderReader;
  /** The parsed body of a 2xx (`undefined` for a 304 and for failures). */
  data?: unknown;
  /** When it arrived, epoch ms. */
  at: number;
  /**
   * The server's wait, ms, uncapped: the longest of its signals (its
   * Retry-After, the reset its rate-limit headers announce when nothing is
   * left in the window, a 2xx's quotas spread over their windows,
   * `X-Poll-Interval`, and the others `serverSays` reads); `null` when it
   * said nothing. Read once per answer, here, for the decision and every
   * feature.
   */
  asked: number | null;
}

/** A reason a feature gives the loop to send nothing yet. */
export interface Hold {
  /**
   * Emitted when the hold begins (a `pause`, a `cooldown`, a `wait`). A
   * timed one's `delay` and `at` are emitted as the engine fitted them: the
   * wait the deadline leaves, ending at the instant every `waiting` hook is
   * told (the ones given here are replaced).
   */
  event: PollEvent;
  /** How long to hold, ms; `Infinity` holds until `wake` is ready (a pause). */
  ms: number;
  /** Ends the hold early. */
  wake?: Wake;
}

/**
 * One feature's part in one attempt loop, at the loop's named points: the
 * one extension contract of pollite's engine, which `poll`, `retry`,
 * `fetchWithRetry`, `pollOperation` and every adapter run. Every member is
 * optional; the loop asks its features in the order given.
 */
export interface LoopHooks {
  /**
   * Before each attempt: a reason to send nothing yet, or nothing. Asked
   * again, of every feature, after each hold ends, until none holds. May
   * be async (a store shared by processes).
   */
  hold?(): Hold | undefined | Promise<Hold | undefined>;
  /** Told every answer (2xx, 304, failure) before the next wait is chosen. */
  answer?(answer: PollAnswer): void;
  /** The wait after a 2xx or 304: given the wait chosen so far, the one to use, ms. */
  pace?(wait: number, answer: PollAnswer): number;
  /**
   * The loop starts a wait (interval, retry or hold): its next attempt is
   * due at `at`, epoch ms, with `failures` failures in a row counted so far
   * (what a checkpoint saves to continue the loop elsewhere).
   */
  waiting?(at: number, failures: number): void;
  /**
   * Whether a retry the decision allows may go ahead (a retry budget pays
   * for it here); false ends the call with its last failure, as if
   * retries had run out.
   */
  afford?(decision: Extract<RetryDecision, { retry: true }>): boolean | Promise<boolean>;
  /** The loop has ended: `ok` when it ended in anything but a failure worth a retry (a budget refunds then). */
  end?(ok: boolean): void | Promise<void>;
  /**
   * Ends interval waits early (the page becomes visible); with `network`,
   * also the wait after a network failure (the network came back); with
   * `every`, every wait, a Retry-After's and a cooldown's included (a "try
   * now" button: the user asked).
   */
  wake?: Wake<string> & {
    /** Also ends the wait after a network failure. */
    network?: boolean;
    /** Ends every wait, a Retry-After's and a cooldown's included. */
    every?: boolean;
  };
}
