import { fetchWithRetry, type FetchRetryOptions, type RetryInfo } from '../index.js';

/** A controller that aborts with `parent`, and the way to let go of it. */
function leash(parent: AbortSignal): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return { controller, release: () => parent.removeEventListener('abort', onAbort) };
}

/** What {@link fetchWithSkippableWaits} reports while it works. */
export interface SkippableFetchHooks {
  /** Before each retry's wait; `attempt` counts across skips (1 for the first retry). */
  onRetry(info: RetryInfo): void;
  /** An attempt is being sent. */
  onSend(): void;
}

/** A {@link fetchWithRetry} call whose waits can be cut short. */
export interface SkippableFetch {
  response: Promise<Response>;
  /** Ends the wait in progress so the next attempt goes out at once; false when none is in progress. */
  skipWait(): boolean;
}

/**
 * `fetchWithRetry` whose wait between attempts can be skipped (a "try now"
 * button) without touching the retry policy: each stretch of attempts runs
 * as its own `fetchWithRetry` call under its own controller. Skipping aborts
 * only that call while it waits and starts the next one at once, carrying
 * over what was spent: the retries left, the backoff position, the time
 * left of `timeout` and the `Idempotency-Key`.
 */
export function fetchWithSkippableWaits(
  input: string,
  init: RequestInit,
  retry: FetchRetryOptions & { retries: number },
  signal: AbortSignal,
  hooks: SkippableFetchHooks,
): SkippableFetch {
  const skipped = new DOMException('The wait was skipped', 'AbortError');
  const now = (): number => (retry.env?.now ?? Date.now)();
  const started = now();
  const { backoff, timeout, onRetry } = retry;
  // `true` would mint a new key per stretch: the first stretch mints it, and `send` keeps it for the others.
  let idempotencyKey = retry.idempotencyKey;
  const fetchImpl = retry.fetch;
  const send: typeof fetch = (request, requestInit) => {
    waiting = null;
    hooks.onSend();
    const sentKey = new Headers(requestInit?.headers).get('idempotency-key');
    if (idempotencyKey === true && sentKey) idempotencyKey = sentKey;
    // Called detached: a browser's fetch throws "Illegal invocation" when called as a method of another object.
    const f = fetchImpl ?? globalThis.fetch;
    return f(request, requestInit);
  };
  let waiting: AbortController | null = null;
  let spent = 0;

  const stretch = async (): Promise<Response> => {
    const offset = spent;
    const leg = leash(signal);
    try {
      return await fetchWithRetry(input, {
        ...init,
        signal: leg.controller.signal,
        retry: {
          ...retry,
          signal: undefined,
          idempotencyKey,
          retries: retry.retries - offset,
          ...(backoff ? { backoff: (n: number) => backoff(offset + n) } : {}),
          ...(timeout === undefined ? {} : { timeout: Math.max(1, timeout - (now() - started)) }),
          fetch: send,
          onRetry: (info) => {
            spent = offset + info.attempt;
            waiting = leg.controller;
            const shifted = { ...info, attempt: spent };
            hooks.onRetry(shifted);
            onRetry?.(shifted);
          },
        },
      });
    } catch (error) {
      if (leg.controller.signal.reason === skipped && !signal.aborted) return stretch();
      throw error;
    } finally {
      leg.release();
    }
  };

  return {
    response: stretch(),
    skipWait: () => {
      const current = waiting;
      if (!current) return false;
      waiting = null;
      current.abort(skipped);
      return true;
    },
  };
}
