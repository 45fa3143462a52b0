import type { Outcome } from '../engine/attempt-spec.js';
import { cooldownHooks } from '../engine/cooldown-hooks.js';
import { failedStatus } from '../engine/failed-status.js';
import type { PollEvent } from '../engine/events.js';
import type { LoopHooks } from '../engine/hooks.js';
import { pauseHooks } from '../engine/pauses.js';
import { runAttempts } from '../engine/run-attempts.js';
import { thrownFailure } from '../engine/thrown-failure.js';
import { HttpError } from '../errors/http-error.js';
import { ParseError } from '../errors/parse-error.js';
import { PollGaveUpError } from '../errors/poll-gave-up-error.js';
import { discardBody } from '../http/body.js';
import { readBodyWait } from '../http/body-wait.js';
import type { Validators } from '../http/request.js';
import { isRetryableStatus } from '../http/retryable-status.js';
import { isRetryableError } from '../policy/is-retryable-error.js';
import type { PollCall } from './feature.js';

/** A sink's `event` that nobody listens to: the loop then builds no event objects. */
export const ignoreEvents = (_event: PollEvent): void => undefined;

/** The built-in pauses and the cooldown, then every feature that joins. */
function attachAll(call: PollCall<unknown>): LoopHooks[] {
  const { settings } = call;
  const { env } = settings;
  // Features get the call itself as their LoopContext, typed to show only its request and settings.
  return [
    settings.pauseWhenHidden && pauseHooks('hidden', 'visible', { holds: () => env.visibility.hidden(), subscribe: (l) => env.visibility.subscribe(l) }),
    settings.pauseWhenOffline && pauseHooks('offline', 'online', { holds: () => env.online.offline(), subscribe: (l) => env.online.subscribe(l) }, true),
    settings.cooldown && cooldownHooks(env, settings.maxRetryAfter, () => call.request.url),
    ...settings.use.map((feature) => feature.attach?.(call)),
  ].filter(Boolean) as LoopHooks[];
}

/**
 * `poll`'s attempt: one request, its answer read as the loop needs it. A
 * 304 (body freed) and a parsed 2xx succeed; a retryable status fails; a
 * status that is not retried rejects with an `HttpError`; a body that
 * cannot be parsed with a `ParseError` (unless it broke off on the way:
 * a network failure); what fetch should never resolve to, with a
 * `TypeError`.
 */
async function attemptOf<T>(call: PollCall<T>, since: Validators | null, signal: AbortSignal | undefined, onResponse: ((status: number, ms: number) => void) | undefined): Promise<Outcome<unknown>> {
  const { request, settings: s } = call;
  const started = onResponse ? s.env.now() : 0;
  const response = await s.fetch(...request.args(since, signal));
  // Read once per response (each of a Response's getters costs a brand check).
  const { status, headers } = (response ?? {}) as Response;
  if (typeof status !== 'number' || typeof headers?.get !== 'function') throw new TypeError(`Expected \`fetch\` to resolve to a Response, got ${String(response)}`);
  onResponse?.(status, s.env.now() - started);
  if (status === 304) {
    discardBody(response);
    return { value: undefined, status, headers };
  }
  if (status < 200 || status >= 300) {
    if (isRetryableStatus(status)) {
      const failed = failedStatus(response, status, headers, request.url);
      failed.bodyWait = await readBodyWait(response, status, headers);
      return failed;
    }
    throw new HttpError(response, request.url);
  }
  try {
    return { value: await s.parse(response), status, headers };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    // A connection that broke while the body came in is the network's failure; anything else, the body's.
    if (isRetryableError(error)) return { failure: { type: 'network', error }, error, status: 0, headers };
    throw new ParseError(response, request.url, error);
  }
}

/**
 * A poll on the one attempt loop: each attempt a request (conditional on
 * the last validators), each parsed 2xx handed to the sink until it says
 * done, a retried status or network failure decided by the loop. Resolves
 * with the body the sink calls done; rejects as documented on `poll`.
 */
export function runLoop<T>(call: PollCall<T>): Promise<T> {
  const { settings: s, sink } = call;
  // Events are built only for a sink that listens: a poll without onEvent allocates none.
  const emit = sink.event === ignoreEvents ? undefined : (event: PollEvent): void => sink.event(event);
  const onResponse = emit && ((status: number, ms: number): void => emit({ type: 'response', status, ms }));
  let since: Validators | null = (s.conditional && call.from?.validators) || null;
  return runAttempts<unknown, T>({
    env: s.env,
    policy: { retries: s.retries, backoff: s.backoff, maxRetryAfter: s.maxRetryAfter, interval: s.interval, countPaced: false, isRetryableStatus },
    hooks: attachAll(call as PollCall<unknown>),
    signals: [call.signal],
    timeout: call.timeout,
    timedOut: 'Polling timed out',
    failures: call.from?.failures,
    attemptTimeout: s.requestTimeout,
    attemptTimedOut: 'Request timed out',
    emit,
    ...(emit && { sending: (attempt: number) => emit({ type: 'request', attempt, conditional: since !== null }) }),
    send: (_attempt, signal) => attemptOf(call, since, signal, onResponse),
    thrown(error, timedOut) {
      // A bug (a TypeError from a request fetch refuses, a body on a GET) is never a network failure: thrown as itself.
      if (!timedOut && !isRetryableError(error)) throw error;
      return thrownFailure(error, timedOut);
    },
    async done({ value, status, headers }) {
      if (status === 304) return false;
      since = s.conditional ? { etag: headers.get('etag'), lastModified: headers.get('last-modified') } : null;
      if (!since?.etag && !since?.lastModified) since = null;
      return sink.update(value as T);
    },
    // Given up on: the failed answer's body is never read, so its connection is freed.
    fail(failed, _reason, failures) {
      if (failed.value) discardBody(failed.value as Response);
      throw new PollGaveUpError(failures, failed.status || undefined, failed.error);
    },
    discard(failed) {
      if (failed.value) discardBody(failed.value as Response);
    },
  });
}
