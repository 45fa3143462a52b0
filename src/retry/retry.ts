import { cooldownHooks } from '../engine/cooldown-hooks.js';
import type { GiveUpReason } from '../engine/events.js';
import type { LoopHooks } from '../engine/hooks.js';
import { runAttempts } from '../engine/run-attempts.js';
import { thrownFailure } from '../engine/thrown-failure.js';
import { refuse } from '../options/check.js';
import { isRetryableError } from '../policy/is-retryable-error.js';
import { budgetHooks } from './budget-hooks.js';
import { normalizeRetryOptions, type NormalizedRetryOptions } from './normalize-retry-options.js';
import type { RetryContext, RetryOptions } from './retry-options.js';
import { retryPolicyOf } from './retry-policy.js';

const NO_HEADERS = new Headers();

/** The URL an error names (an `HttpError`'s `url`, or its response's). */
const urlOf = (error: unknown): string | undefined => {
  const e = error as { url?: unknown; response?: { url?: unknown } } | null;
  const url = typeof e?.url === 'string' ? e.url : e?.response?.url;
  return typeof url === 'string' && url !== '' ? url : undefined;
};

/** The hooks `retry` and `fetchWithRetry` join to the loop: the cooldown of `url()`, the `wake`, the budget. */
export function retryHooks(o: NormalizedRetryOptions, url: () => string | undefined): LoopHooks[] {
  const hooks: LoopHooks[] = [];
  if (o.cooldown) hooks.push(cooldownHooks(o.env, o.maxRetryAfter, url));
  // A wake given to retry ends every wait: the caller asked for a try now.
  if (o.wake) hooks.push({ wake: { reason: o.wake.reason, subscribe: o.wake.subscribe, ready: o.wake.ready, every: true } });
  if (o.budget) hooks.push(budgetHooks(o.budget));
  return hooks;
}

/** What `retry` and `fetchWithRetry` give the engine alike: their policy, hooks, signals and deadlines, no events, the budget's prices, `onGiveUp`. */
export const retrySpec = (o: NormalizedRetryOptions, isRetryableStatus: (status: number) => boolean, url: () => string | undefined) => ({
  env: o.env,
  policy: retryPolicyOf(o, isRetryableStatus),
  hooks: retryHooks(o, url),
  signals: o.signals,
  timeout: o.timeout,
  timedOut: 'Retrying timed out',
  attemptTimeout: o.attemptTimeout,
  attemptTimedOut: 'Attempt timed out',
  emit: undefined,
  prices: o.budget,
  ...(o.onGiveUp && { givingUp: (error: unknown, attempt: number, reason: GiveUpReason) => o.onGiveUp!({ error, attempt, reason }) }),
});

/**
 * Calls `fn` until it resolves, retrying the failures `shouldRetry` accepts
 * (network failures, timeouts and retryable `HttpError`s by default) after
 * `backoff(n)`, at most `retries` times. An error carrying a `response`
 * with a Retry-After of a second or more is retried after that long
 * instead (at least that, at most 1.2 times that, never past
 * `maxRetryAfter`).
 *
 * Resolves with `fn`'s value. Rejects with the last error itself (not a
 * wrapper) once retries are exhausted, the budget cannot pay or the error
 * is not retryable (`onGiveUp` says which, just before); with a `TimeoutError` DOMException when `timeout`
 * passes (`cause`: the last error; a wait that would cross it is
 * shortened for one last try, never below a server's wait); or with
 * `signal.reason` on abort, without calling `fn` when the signal is already
 * aborted. Bad options reject with a `TypeError` before `fn` is called.
 *
 * @example
 * const user = await retry(async ({ signal }) => {
 *   const response = await fetch('/api/user', { signal });
 *   if (!response.ok) throw new HttpError(response);
 *   return response.json();
 * }, { retries: 5, timeout: 10_000 });
 */
export async function retry<T>(fn: (ctx: RetryContext) => Promise<T>, options?: RetryOptions): Promise<T> {
  if (typeof fn !== 'function') refuse('fn', 'a function');
  const o = normalizeRetryOptions(options);
  const shouldRetry = o.shouldRetry ?? isRetryableError;
  let url: string | undefined;
  // Nothing can abort this call: a signal that never aborts, made only if `fn` asks.
  let idle: AbortController | undefined;
  return runAttempts<T, T>({
    ...retrySpec(o, () => true, () => url),
    send: async (attempt, signal) => ({
      value: await fn(signal ? { attempt, signal } : { attempt, get signal() { return (idle ??= new AbortController()).signal; } }),
      status: 0,
      headers: NO_HEADERS,
    }),
    thrown: (error, timedOut) => {
      url ??= urlOf(error);
      return thrownFailure(error, timedOut);
    },
    wanted: (failed, attempt) => shouldRetry(failed.error, { attempt }),
    done: () => true,
    fail: (failed) => {
      throw failed.error;
    },
    ...(o.onRetry && { retrying: (failed, attempt, delay, paced, source) => o.onRetry!({ error: failed.error, attempt, delay, paced, ...(source && { source }) }) }),
  });
}
