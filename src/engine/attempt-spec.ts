import type { Clock } from '../env/clock.js';
import type { HeaderReader } from '../http/parse-retry-after.js';
import type { WaitSource } from '../http/server-wait.js';
import type { BudgetPrices, Failure, RetryDecision, RetryPolicy } from '../policy/retry-decision.js';
import type { GiveUpReason, PollEvent } from './events.js';
import type { LoopHooks } from './hooks.js';

/** One attempt that succeeded: a value to go on with (a parsed 2xx, a 304, a Response, `fn`'s value). */
export interface Succeeded<T> {
  value: T;
  /** The answer's status, 0 when the value is not a response. */
  status: number;
  /** The answer's headers, empty when none. */
  headers: HeaderReader;
  failure?: undefined;
}

/** One attempt that failed: what the decision is asked about, and what the call ends with if it is not retried. */
export interface Failed<T> {
  failure: Failure;
  /** What the caller sees: the error itself, or (a retried status) an `HttpError`, made lazily by `errorOf`. */
  error: unknown;
  /** A failed value the call may end with (fetchWithRetry's last 503), freed by `discard` when retried. */
  value?: T;
  /** The answer's status and headers (0 and empty without an answer). */
  status: number;
  headers: HeaderReader;
  /** The attempt ran out of its own time (`requestTimeout`, `attemptTimeout`). */
  timedOut?: boolean;
  /** The wait the answer's body asks for, ms, when the surface read one (`readBodyWait`): a floor beside the headers' signals. */
  bodyWait?: number | null;
}

/** What one attempt came to. */
export type Outcome<T> = Succeeded<T> | Failed<T>;

/** Why a call ends with a failure. */
export type EndReason = Extract<RetryDecision, { retry: false }>['reason'] | 'refused' | 'unwanted';

/**
 * What a surface (`poll`, `retry`, `fetchWithRetry`) plugs into the one
 * attempt loop: how to make one attempt and what its outcomes mean to the
 * caller. Every rule of pacing (the decision, the deadline, the pace,
 * holds, wakes, the budget) is the loop's, not the surface's.
 */
export interface AttemptSpec<T, R = T> {
  /** Time, timers and randomness. */
  env: Clock;
  /** The retry policy the decision runs under. */
  policy: RetryPolicy;
  /** The features that join the loop, built-in ones (pauses, cooldown, budget) first. */
  hooks: readonly LoopHooks[];
  /** The caller's signals: any aborting ends the call with its reason. */
  signals: ReadonlyArray<AbortSignal | undefined>;
  /** The total deadline, ms from now. */
  timeout: number | undefined;
  /** The words before "after N ms" of the total deadline's `TimeoutError` (`Polling timed out`). */
  timedOut: string;
  /** Each attempt's own deadline, ms. */
  attemptTimeout: number | undefined;
  /** The words before "after N ms" of an attempt's `TimeoutError` (`Request timed out`). */
  attemptTimedOut: string;
  /** Where the loop's events go; none built without it. */
  emit: ((event: PollEvent) => void) | undefined;
  /** The budget's prices, when a budget joins (as an `afford` hook). */
  prices?: BudgetPrices | undefined;
  /** Whether the call may be retried at all (a POST without its key may not). @default true */
  retryable?: boolean;
  /** Failures in a row counted before this loop began: an earlier run of the same call, resumed (`pollite/resume`). @default 0 */
  failures?: number | undefined;
  /** Why the call may not be retried when `retryable` is false, for its give-up (a failure the policy would not retry anyway gives up as `not-retryable`). @default 'not-retryable' */
  unretryable?: GiveUpReason;
  /** Just before attempt `attempt` is sent (counted from 1 since the last success). */
  sending?(attempt: number): void;
  /**
   * Makes one attempt under `signal` (which aborts on the caller, the
   * deadline and the attempt's own timeout; `undefined` when nothing can
   * abort). Resolves with its outcome; throws what is never retried.
   */
  send(attempt: number, signal: AbortSignal | undefined): Promise<Outcome<T>>;
  /** An attempt threw (`timedOut`: its own deadline passed): the failure to decide on, or a throw for what is never retried. */
  thrown(error: unknown, timedOut: boolean): Failed<T>;
  /** Whether the caller wants this failure retried at all (`shouldRetry`). @default yes */
  wanted?(failed: Failed<T>, attempt: number): boolean | Promise<boolean>;
  /** A success: resolves true when the call ends with it (a poll's terminal body; any success of a retry). */
  done(succeeded: Succeeded<T>): boolean | Promise<boolean>;
  /** Whether what the call ends with outlives the loop (a Response whose body is still to be read): `result` and `fail` then get `release`, to call once it is done. @default false */
  keeps?: boolean;
  /** The call ends with `succeeded`: what the caller gets. @default its value */
  result?(succeeded: Succeeded<T>, release: () => void, signal: AbortSignal | undefined): R;
  /** The call ends with a failure it will not retry: what the caller gets, or a throw. */
  fail(failed: Failed<T>, reason: EndReason, failures: number, release: () => void, signal: AbortSignal | undefined): R;
  /** A failure is retried after `delay` (`onRetry`); `paced`: the server asked for the wait, so it is not shown as a failure; `source`: the signal that asked. */
  retrying?(failed: Failed<T>, attempt: number, delay: number, paced: boolean, source: WaitSource | undefined): void;
  /** Attempt `attempt` failed with `error` and is not retried, for `reason` (`onGiveUp`): called once, just before the call ends with it. */
  givingUp?(error: unknown, attempt: number, reason: GiveUpReason): void;
  /** Frees a failed value before its retry (cancels a response's body). */
  discard?(failed: Failed<T>): void;
}
