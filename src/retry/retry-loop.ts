import { expo } from '../backoff/ceiling.js';
import { deadline } from '../env/deadline.js';
import { abortable } from '../env/settle.js';
import { wait } from '../env/wait.js';
import { timeoutError } from '../errors/timeout-error.js';
import { errorOutcome } from '../policy/error-outcome.js';
import { isRetryableError } from '../policy/is-retryable-error.js';
import { retryDecision, type Failure, type RetryPolicy } from '../policy/retry-decision.js';
import type { NormalizedRetryOptions } from './normalize-retry-options.js';
import type { RetryContext } from './retry-options.js';

/** A value that an attempt produced but that is a failure all the same (a 503 response). */
export interface FailedValue {
  /** What `shouldRetry`, `onRetry` and a deadline's `cause` see. */
  error: unknown;
  failure: Failure;
  /** The attempt ran out of its own `attemptTimeout`: retried whatever `shouldRetry` says, as documented. */
  attemptTimedOut?: boolean;
}

/** What one caller of the loop (`retry`, `fetchWithRetry`) plugs into it. */
export interface RetryLoopSpec<T> {
  /** Runs one attempt. `cancellable` is false when nothing can abort `ctx.signal`, so it need not be handed on. */
  attempt(ctx: RetryContext, cancellable: boolean): Promise<T>;
  /** Whether this call may be retried at all (fetch: the method and body allow it). @default true */
  retryable?: boolean;
  /** Classes a value as a failure; `undefined` when it is a result. @default every value is a result */
  failureOf?(value: T): FailedValue | undefined;
  /** Frees a failed value before retrying (fetch: cancels the body). */
  discard?(value: T): void;
  /** How long to wait before an attempt (the cooldown), ms; 0 when clear. Outside `attemptTimeout`, inside `timeout`. */
  gate?(): number;
  /** Which statuses (of a failed value, or of an error's `response`) are worth another try. @default every status */
  isRetryableStatus?(status: number): boolean;
  /** The default `shouldRetry`. @default isRetryableError */
  shouldRetry?(error: unknown): boolean;
  /**
   * The value the call ends with outlives the loop (a Response whose body is
   * still to be read): it gets the release of the loop's signals and timers,
   * to call once it is done, and returns what the caller gets.
   */
  keep?(value: T, release: () => void, signal: AbortSignal | undefined): T;
}

type AttemptResult<T> = { value: T; failed?: FailedValue } | { error: unknown; failed: FailedValue };

const noop = (): void => undefined;

/**
 * The retry loop shared by `retry` and `fetchWithRetry`: attempts, waits
 * decided by `retryDecision`, the total deadline, per-attempt timeouts,
 * the shared budget and cancellation. Leaves no timer or listener behind.
 */
export async function runRetryLoop<T>(spec: RetryLoopSpec<T>, o: NormalizedRetryOptions): Promise<T> {
  const { env } = o;
  const shouldRetry = o.shouldRetry ?? spec.shouldRetry ?? isRetryableError;
  const wakes = o.wake ? [o.wake] : [];
  const aborted = o.signals.find((s) => s.aborted);
  if (aborted) throw aborted.reason;
  // AbortSignals are costly in Node (making one and collecting it cost more than the rest of a call), so
  // the loop has a signal only when something can abort it, and `fn` gets one only if it reads it.
  const canAbort = o.signals.length > 0 || o.timeout !== undefined || o.attemptTimeout !== undefined;
  let lastError: unknown;
  const loop = deadline(env, o.timeout, () => timeoutError(`Retrying timed out after ${o.timeout} ms`, lastError), ...o.signals);
  const { signal } = loop;
  const policy: RetryPolicy = {
    retries: o.retries,
    backoff: o.backoff ?? ((n) => env.random() * expo(500, 10_000, n)),
    maxRetryAfter: o.maxRetryAfter,
    interval: 0,
    countPaced: true,
    isRetryableStatus: spec.isRetryableStatus ?? (() => true),
    deadline: loop.at,
  };
  const pastDeadline = (): DOMException => timeoutError(`Retrying would wait past its ${o.timeout} ms deadline`, lastError);
  let idle: AbortController | undefined;
  let kept = false;
  /** Stops the current attempt's timer and signal. */
  let stopAttempt = noop;
  let attemptSignal: AbortSignal | undefined;
  const release = (): void => {
    stopAttempt();
    loop.stop();
  };

  const runAttempt = async (attempt: number): Promise<AttemptResult<T>> => {
    const gate = spec.gate?.() ?? 0;
    if (gate > 0) {
      if (env.now() + gate > loop.at) throw pastDeadline();
      await wait(env, gate, signal, wakes);
    }
    // Without an attemptTimeout the loop's signal serves every attempt.
    const child = o.attemptTimeout === undefined ? undefined : deadline(env, o.attemptTimeout, () => timeoutError(`Attempt timed out after ${o.attemptTimeout} ms`), signal);
    attemptSignal = child ? child.signal : signal;
    stopAttempt = child ? child.stop : noop;
    // Nothing can abort this call: a signal that never aborts, made only if `fn` asks.
    const ctx: RetryContext = attemptSignal ? { attempt, signal: attemptSignal! } : { attempt, get signal() { return (idle ??= new AbortController()).signal; } };
    try {
      const value = await abortable(spec.attempt(ctx, canAbort), attemptSignal);
      const failed = spec.failureOf?.(value);
      return failed ? { value, failed } : { value };
    } catch (error) {
      stopAttempt();
      if (signal?.aborted) throw signal.reason;
      const timedOut = child?.passed() === true;
      const reported = timedOut ? attemptSignal!.reason : error;
      return { error: reported, failed: { error: reported, failure: errorOutcome(reported, timedOut), attemptTimedOut: timedOut } };
    }
  };

  // How the call ends when no retry follows: the value itself (a last 503 response) or the error, as itself.
  const settle = (result: AttemptResult<T>): T => {
    if ('error' in result) throw result.error;
    if (!spec.keep) return result.value;
    kept = true;
    return spec.keep(result.value, release, attemptSignal);
  };

  try {
    let failures = 0;
    for (let attempt = 1; ; attempt += 1) {
      const result = await runAttempt(attempt);
      const { failed } = result;
      if (!failed) {
        await o.budget?.refund();
        return settle(result);
      }
      lastError = failed.error;
      const wanted = spec.retryable !== false && (failed.attemptTimedOut === true || (await shouldRetry(failed.error, { attempt })));
      if (signal?.aborted) throw signal.reason;
      if (!wanted) {
        // Ending in anything but a retryable failure counts as a success.
        if (spec.retryable !== false) await o.budget?.refund();
        return settle(result);
      }
      const decision = retryDecision(failed.failure, failures, policy, env.now(), env.random(), o.budget);
      if (!decision.retry) {
        if (decision.reason === 'deadline') throw pastDeadline();
        return settle(result);
      }
      if (o.budget && !(await o.budget.withdraw(decision.cost!))) return settle(result);
      stopAttempt();
      if ('value' in result) spec.discard?.(result.value);
      failures = decision.failures;
      o.onRetry?.({ error: failed.error, attempt, delay: decision.delay });
      await wait(env, decision.delay, signal, wakes);
    }
  } finally {
    if (!kept) release();
  }
}
