import type { Failed } from '../engine/attempt-spec.js';
import type { GiveUpReason } from '../engine/events.js';
import { failedStatus } from '../engine/failed-status.js';
import { runAttempts } from '../engine/run-attempts.js';
import { thrownFailure } from '../engine/thrown-failure.js';
import { isHttpError } from '../errors/http-error.js';
import { discardBody } from '../http/body.js';
import { readBodyWait } from '../http/body-wait.js';
import { checkInput } from '../http/check-input.js';
import { requestFactory } from '../http/request.js';
import { refuse, signal as signalCheck } from '../options/check.js';
import { isResponseLike } from '../policy/error-outcome.js';
import { isRetryableError } from '../policy/is-retryable-error.js';
import { followBody } from './follow-body.js';
import { idempotencyKeyFor, withIdempotencyKey } from './idempotency-key.js';
import { checkFetchInit, normalizeFetchRetryOptions, type NormalizedFetchRetryOptions } from './normalize-retry-options.js';
import { isReplayableBody } from './replayable-body.js';
import type { FetchWithRetryInit } from './retry-options.js';
import { retrySpec } from './retry.js';

/** Methods that change state: sent once unless the call carries an Idempotency-Key. */
const WRITES = new Set(['POST', 'PATCH']);

/** Why this call may not be sent more than once, as its give-up says; `undefined` when it may. */
function whyNotRetried(o: NormalizedFetchRetryOptions, method: string, keyed: boolean, input: string | URL | Request, init: RequestInit): GiveUpReason | undefined {
  // A stream is consumed by the first send, in `init.body` or as a Request's own body (every Request body is one).
  if (!isReplayableBody(init.body) || (init.body == null && (input as Partial<Request>).body)) return 'body-not-replayable';
  // A write only with its key; anything else also as one of `methods`.
  if (keyed) return undefined;
  if (WRITES.has(method)) return 'not-idempotent';
  return o.methods.includes(method) ? undefined : 'not-retryable';
}

/**
 * Whether a final `status` is an error (`throwHttpErrors`): 400 or more,
 * or a 3xx but 304 that fetch did not follow although it was asked to. A
 * 304 answers a conditional request; status 0 is an opaque response
 * (`no-cors`, a browser's manual redirect), which fetch gives to who asked.
 */
const isErrorStatus = (status: number, manual: boolean): boolean => status >= 400 || (status >= 300 && status !== 304 && !manual);

/**
 * `fetch`, with retries: resolves with a `Response` whatever its status,
 * like `fetch`, but retries network failures and `statusCodes` responses
 * (408, 429, 500, 502, 503, 504) of `methods` (the idempotent ones). A
 * Retry-After of a second or more is waited out (at least that long, at
 * most 1.2 times, capped by `maxRetryAfter`), otherwise `backoff`.
 * Discarded responses have their bodies cancelled; when retries run out
 * (or the `budget` cannot pay) the last response resolves, body unread.
 * With `throwHttpErrors: true` an error status (a 4xx at once, a 503 once
 * retries run out) rejects instead, with an `HttpError` carrying that
 * response. `onGiveUp` says why a failure was not retried (a POST without
 * a key: `not-idempotent`).
 *
 * POST and PATCH are sent once unless `idempotencyKey` is set; then every
 * attempt carries the same `Idempotency-Key` header. A `ReadableStream`
 * body, and a `Request` input's own body, are sent once. `init.signal`
 * and `retry.signal` both cancel the request in flight, any wait and the
 * reading of the body it resolves with (rejecting with the reason);
 * `timeout` rejects with a `TimeoutError` DOMException. Bad options, and
 * requests fetch refuses (a body on a GET), reject with a `TypeError`
 * before anything is retried.
 *
 * @example
 * const response = await fetchWithRetry('/api/orders', {
 *   method: 'POST',
 *   body: JSON.stringify(order),
 *   retry: { idempotencyKey: true, timeout: 15_000 },
 * });
 */
export async function fetchWithRetry(input: string | URL | Request, init?: FetchWithRetryInit): Promise<Response> {
  checkInput(input);
  if (init !== undefined && (typeof init !== 'object' || init === null)) refuse('init', 'an object');
  if ((typeof __DEV__ === 'undefined' || __DEV__) && init) checkFetchInit(init);
  const { retry: options, ...fetchInit } = init ?? {};
  const o = normalizeFetchRetryOptions(options);
  // As with fetch, `init.signal` replaces a Request's own signal; both it and `retry.signal` cancel.
  const given = fetchInit.signal ?? (input as Partial<Request>).signal;
  if (given != null && !signalCheck[0](given)) refuse('signal', signalCheck[1]);
  if (given) o.signals.unshift(given);
  const request = requestFactory(input, fetchInit);
  const headers = new Headers(request.headers);
  const fresh = idempotencyKeyFor(o.idempotencyKey, headers);
  // A resumed call goes on with what its earlier run saved: a write, with the key it was sent with (never a new one).
  const run = o.resume && (await o.resume.begin({ method: request.method, url: request.url, idempotencyKey: fresh, timeout: o.timeout, now: () => o.env.now() }));
  const key = run ? run.idempotencyKey : fresh;
  const sent = key === null ? request : requestFactory(input, { ...fetchInit, headers: withIdempotencyKey(headers, key) });
  const shouldRetry = o.shouldRetry ?? ((error: unknown) => isHttpError(error) || isRetryableError(error));
  const retried = (status: number): boolean => o.statusCodes.includes(status);
  const manual = (fetchInit.redirect ?? (input as Partial<Request>).redirect) === 'manual';
  const why = whyNotRetried(o, request.method, key !== null, input, fetchInit);
  /** The response the call ends with, its body followed so the call's signal and deadlines keep their word while it is read. */
  const keep = (response: Response, release: () => void, signal: AbortSignal | undefined): Response => (signal ? followBody(response, signal, release) : (release(), response));
  const fetchImpl = o.fetch;
  const base = retrySpec(o, retried, () => request.url);
  if (run) {
    base.hooks.push(run.hooks);
    base.timeout = run.timeout;
  }
  const called = runAttempts<Response, Response>({
    ...base,
    ...(run && { failures: run.failures }),
    retryable: why === undefined,
    ...(why && { unretryable: why }),
    keeps: true,
    // A signal that can never abort is not handed to fetch: it would only make fetch listen to it. Called detached: browsers and workerd refuse a fetch whose `this` is not the global.
    send: async (_attempt, signal) => {
      const response = await fetchImpl(...sent.args(null, signal));
      if (!isResponseLike(response)) throw new TypeError(`Expected \`fetch\` to resolve to a Response, got ${String(response)}`);
      const { status, headers } = response;
      // An error status that is not retried fails too, so that it gives up (`not-retryable`) and may throw.
      if (retried(status) || isErrorStatus(status, manual)) {
        const failed = failedStatus(response, status, headers, request.url);
        // A retried answer's body may say when to come back: read from a clone, bounded, so the response stays whole.
        if (retried(status)) failed.bodyWait = await readBodyWait(response, status, headers);
        return failed;
      }
      return { value: response, status, headers };
    },
    thrown: thrownFailure,
    // shouldRetry is asked about retried statuses and thrown errors only, never about a status outside `statusCodes`.
    wanted: (failed, attempt) => (failed.failure.type === 'status' && !retried(failed.status) ? false : shouldRetry(failed.error, { attempt })),
    done: () => true,
    result: ({ value }, release, signal) => keep(value, release, signal),
    // Retries ran out, or were not wanted: the last response itself, body unread (or the error, when there was none,
    // or an error status under `throwHttpErrors`: its HttpError carries that response, and the call lets go of it).
    fail: (failed: Failed<Response>, _reason, _failures, release, signal) => {
      if (failed.value && !(o.throwHttpErrors && isErrorStatus(failed.status, manual))) return keep(failed.value, release, signal);
      throw failed.error;
    },
    discard: (failed) => {
      if (failed.value) discardBody(failed.value);
    },
    ...(o.onRetry && { retrying: (failed, attempt, delay, paced, source) => o.onRetry!({ error: failed.error, attempt, delay, paced, ...(source && { source }) }) }),
  });
  return run ? run.settle(called, o.signals) : called;
}
