import { retryDecision, type FailureOutcome, type RetryPolicy } from '../core/retry-decision.js';
import { abortable, linkedController } from '../env/abortable.js';
import { sleepIn } from '../env/sleep.js';
import { startTimer } from '../env/timer.js';
import { timeoutError } from '../errors/timeout-error.js';
import { errorOutcome } from './error-outcome.js';
import { linkSignals } from './link-signals.js';
import type { NormalizedRetryOptions } from './normalize-retry-options.js';
import type { RetryContext } from './retry-options.js';

/** A value that an attempt produced but that is a failure all the same (a 503 response). */
export interface FailedValue {
  /** What `shouldRetry`, `onRetry` and a deadline's `cause` see. */
  error: unknown;
  outcome: FailureOutcome;
  /** The attempt ran out of its own `attemptTimeout`: retryable whatever `shouldRetry` says, as documented. */
  attemptTimedOut?: boolean;
}

/** What one caller of the loop (`retry`, `fetchWithRetry`) plugs into it. */
export interface RetryLoopSpec<T> {
  /**
   * Runs one attempt. `cancellable` is false when nothing can abort
   * `ctx.signal`, so it need not be handed on (fetch pays for every signal).
   */
  attempt(ctx: RetryContext, cancellable: boolean): Promise<T>;
  /** Whether this call may be retried at all (fetch: the method and body allow it). @default true */
  retryable?: boolean;
  /** Classes a value as a failure; `undefined` when it is a result. @default every value is a result */
  failureOf?(value: T): FailedValue | undefined;
  /** Frees a failed value before retrying (fetch: cancels the body). */
  discard?(value: T): void;
  /**
   * How long to wait before an attempt (the origin's cooldown), ms; 0 when
   * clear. The wait is outside the attempt's `attemptTimeout` (waiting is
   * not trying, so it never costs a retry) but inside the total `timeout`:
   * one that would end past the deadline is not started.
   */
  gate?(): number;
  /**
   * Which statuses (of a failed value, or of an error's `response`) are worth
   * another try. @default every status: `shouldRetry` has already accepted the error
   */
  isRetryableStatus?(status: number): boolean;
}

type AttemptResult<T> = { value: T; failure?: FailedValue } | { error: unknown; failure: FailedValue };

const noop = (): void => undefined;

/**
 * The retry loop shared by `retry` and `fetchWithRetry`: attempts, waits
 * decided by `retryDecision`, the total deadline, per-attempt timeouts,
 * the shared budget and cancellation. Leaves no timer or listener behind.
 */
export async function runRetryLoop<T>(spec: RetryLoopSpec<T>, o: NormalizedRetryOptions): Promise<T> {
  const policy: RetryPolicy = {
    maxFailures: o.retries,
    backoff: o.backoff,
    maxRetryAfter: o.maxRetryAfter,
    interval: 0,
    countPaced: true,
    isRetryableStatus: spec.isRetryableStatus ?? (() => true),
  };
  const aborted = o.signals.find((signal) => signal.aborted);
  if (aborted) throw aborted.reason;
  // AbortSignals are costly in Node (creating one and collecting it cost more
  // than the rest of a call; a listener on a fresh one, tens of µs). So the
  // loop has a signal only when something can abort it; an attempt gets its
  // own controller only when it has its own timeout, is raced against the
  // signal only when that can abort, and `fn` gets one only if it reads it.
  const canAbort = o.signals.length > 0 || o.timeout !== undefined || o.attemptTimeout !== undefined;
  const loop = canAbort ? linkSignals(o.signals) : undefined;
  const signal = loop?.controller.signal;
  const { env } = o;
  let lastError: unknown;
  const deadline = o.timeout === undefined ? Infinity : env.now() + o.timeout;
  const stopDeadline =
    o.timeout === undefined
      ? noop
      : startTimer(env, o.timeout, () =>
          loop!.controller.abort(timeoutError(`Retrying timed out after ${o.timeout} ms`, lastError)),
        );
  let idle: AbortController | undefined;
  const context = (attempt: number, attemptSignal: AbortSignal | undefined): RetryContext =>
    attemptSignal
      ? { attempt, signal: attemptSignal }
      : {
          attempt,
          // Nothing can abort this call: a signal that never aborts, made only if `fn` asks.
          get signal() {
            return (idle ??= new AbortController()).signal;
          },
        };

  const runAttempt = async (attempt: number): Promise<AttemptResult<T>> => {
    const gate = spec.gate?.() ?? 0;
    if (gate > 0) {
      if (env.now() + gate > deadline) throw timeoutError(`Retrying would wait past its ${o.timeout} ms deadline`, lastError);
      await sleepIn(env, gate, signal);
    }
    const child = o.attemptTimeout === undefined ? undefined : linkedController(signal!);
    const attemptSignal = child ? child.controller.signal : signal;
    let timedOut = false;
    const stopAttemptTimer = child
      ? startTimer(env, o.attemptTimeout!, () => {
          timedOut = true;
          child.controller.abort(timeoutError(`Attempt timed out after ${o.attemptTimeout} ms`));
        })
      : noop;
    try {
      const pending = spec.attempt(context(attempt, attemptSignal), canAbort);
      const value = await (attemptSignal ? abortable(pending, attemptSignal) : pending);
      const failure = spec.failureOf?.(value);
      return failure ? { value, failure } : { value };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const reported = timedOut ? attemptSignal!.reason : error;
      return { error: reported, failure: { error: reported, outcome: errorOutcome(reported, timedOut), attemptTimedOut: timedOut } };
    } finally {
      stopAttemptTimer();
      child?.release();
    }
  };

  // How the call ends when no retry follows: the failed value itself (a last
  // 503 response) or the error, in its original identity.
  const settle = (result: AttemptResult<T>): T => {
    if ('error' in result) throw result.error;
    return result.value;
  };

  try {
    let failures = 0;
    for (let attempt = 0; ; attempt += 1) {
      const result = await runAttempt(attempt);
      const { failure } = result;
      if (!failure) {
        o.budget?.refund();
        return (result as { value: T }).value;
      }
      lastError = failure.error;
      const wanted =
        spec.retryable !== false &&
        (failure.attemptTimedOut === true || (await o.shouldRetry(failure.error, { attempt })));
      if (signal?.aborted) throw signal.reason;
      if (!wanted) {
        // Ending in anything but a retryable failure counts as a success.
        if (spec.retryable !== false) o.budget?.refund();
        return settle(result);
      }
      const decision = retryDecision(failure.outcome, failures, policy, env.now(), env.random(), o.budget);
      if (!decision.retry) return settle(result);
      if (env.now() + decision.delay > deadline) {
        throw timeoutError(`Retrying would wait past its ${o.timeout} ms deadline`, lastError);
      }
      if (o.budget && !o.budget.withdraw(decision.cost ?? 0)) return settle(result);
      if ('value' in result) spec.discard?.(result.value);
      failures = decision.failures;
      o.onRetry?.({ error: failure.error, attempt: attempt + 1, delay: decision.delay });
      await sleepIn(env, decision.delay, signal);
    }
  } finally {
    stopDeadline();
    loop?.release();
  }
}
