import { retryCooldown } from '../cooldown/retry-cooldown.js';
import { refuse } from '../options/check.js';
import { normalizeRetryOptions } from './normalize-retry-options.js';
import type { RetryContext, RetryOptions } from './retry-options.js';
import { runRetryLoop } from './retry-loop.js';

/**
 * Calls `fn` until it resolves, retrying the failures `shouldRetry` accepts
 * (network failures, timeouts and retryable `HttpError`s by default) after
 * `backoff(n)`, at most `retries` times. An error carrying a `response`
 * with a Retry-After of a second or more is retried after that long
 * instead (at least that, at most 1.2 times that).
 *
 * Resolves with `fn`'s value. Rejects with the last error itself (not a
 * wrapper) once retries are exhausted, the budget cannot pay or the error
 * is not retryable; with a `TimeoutError` DOMException (`timeout`, `cause`:
 * the last error); or with `signal.reason` on abort, without calling `fn`
 * when the signal is already aborted. Bad options reject with a `TypeError`
 * before `fn` is called.
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
  const cooldown = o.cooldown ? retryCooldown(o.env, o.maxRetryAfter) : undefined;
  const attempt = cooldown
    ? async (ctx: RetryContext): Promise<T> => {
        try {
          return await fn(ctx);
        } catch (error) {
          cooldown.noteError(error);
          throw error;
        }
      }
    : async (ctx: RetryContext): Promise<T> => fn(ctx);
  return runRetryLoop({ attempt, ...(cooldown ? { gate: () => cooldown.delay() } : {}) }, o);
}
