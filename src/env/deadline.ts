import type { Clock } from './clock.js';
import { link } from './link.js';
import { startTimer } from './timer.js';

/** A signal bounded by a deadline, and the way to let go of it. */
export interface Deadline {
  /** Aborts with a parent's reason, or with `reason()` once `ms` have passed; `undefined` when nothing can abort. */
  signal: AbortSignal | undefined;
  /** Epoch ms of the deadline; `Infinity` without one. */
  at: number;
  /** Whether the deadline (not a parent) aborted the signal. */
  passed(): boolean;
  /** Cancels the timer and drops the parents' subscriptions. */
  stop(): void;
}

const NO_DEADLINE: Deadline = Object.freeze({ signal: undefined, at: Infinity, passed: () => false, stop: () => undefined });

/**
 * The one deadline of pollite, behind `poll`'s `timeout` and
 * `requestTimeout` and `retry`'s `timeout` and `attemptTimeout`: a fresh
 * signal that follows `parents` and, after `ms`, aborts with `reason()`. A
 * chained plain timer does it, which the event loop holds, unlike Node 20's
 * `AbortSignal.timeout` inside `AbortSignal.any` (a garbage collection can
 * silently cancel that one). With neither `ms` nor a parent nothing can
 * abort, and nothing is made: signals cost more CPU than the rest of a call.
 */
export function deadline(clock: Clock, ms: number | undefined, reason: () => unknown, ...parents: Array<AbortSignal | undefined>): Deadline {
  if (ms === undefined && !parents.some(Boolean)) return NO_DEADLINE;
  let passed = false;
  const own = link(...parents);
  const stopTimer =
    ms === undefined
      ? undefined
      : startTimer(clock, ms, () => {
          passed = true;
          own.controller.abort(reason());
        });
  return {
    signal: own.controller.signal,
    at: ms === undefined ? Infinity : clock.now() + ms,
    passed: () => passed,
    stop: () => {
      stopTimer?.();
      own.release();
    },
  };
}
