import type { Failed } from '../engine/attempt-spec.js';
import { runAttempts } from '../engine/run-attempts.js';
import { thrownFailure } from '../engine/thrown-failure.js';
import { HttpError, isHttpError } from '../errors/http-error.js';
import { discardBody } from '../http/body.js';
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

/** Whether this call may be sent more than once. */
function mayRetry(o: NormalizedFetchRetryOptions, method: string, keyed: boolean, input: string | URL | Request, init: RequestInit): boolean {
  // A stream is consumed by the first send, in `init.body` or as a Request's own body (every Request body is one).
  if (!isReplayableBody(init.body) || (init.body == null && (input as Partial<Request>).body)) return false;
  // A write only with its key; anything else also as one of `methods`.
  return keyed || (!WRITES.has(method) && o.methods.includes(method));
}

/**
 * `fetch`, with retries: resolves with a `Response` whatever its status,
 * like `fetch`, but retries network failures and `statusCodes` responses
 * (408, 429, 500, 502, 503, 504) of `methods` (the idempotent ones). A
 * Retry-After of a second or more is waited out (at least that long, at
 * most 1.2 times, capped by `maxRetryAfter`), otherwise `backoff`.
 * Discarded responses have their bodies cancelled; when retries run out
 * (or the `budget` cannot pay) the last response resolves, body unread.
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
/**
 * `fetch`, with retries: resolves with a `Response` whatever its status,
 * like `fetch`, but retries network failures and `statusCodes` responses
 * (408, 429, 500, 502, 503, 504) of `methods` (the idempotent ones). A
 * Retry-After of a second or more is waited out (at least that long, at
 * most 1.2 times, capped by `maxRetryAfter`), otherwise `backoff`.
 * Discarded responses have their bodies cancelled; when retries run out
 * (or the `budget` cannot pay) the last response resolves, body unread.
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
  const key = idempotencyKeyFor(o.idempotencyKey, headers);
  const sent = key === null ? request : requestFactory(input, { ...fetchInit, headers: withIdempotencyKey(headers, key) });
  const shouldRetry = o.shouldRetry ?? ((error: unknown) => isHttpError(error) || isRetryableError(error));
  const retried = (status: number): boolean => o.statusCodes.includes(status);
  /** The response the call ends with, its body followed so the call's signal and deadlines keep their word while it is read. */
  const keep = (response: Response, release: () => void, signal: AbortSignal | undefined): Response => (signal ? followBody(response, signal, release) : (release(), response));
  const fetchImpl = o.fetch;
  return runAttempts<Response, Response>({
    ...retrySpec(o, retried, () => request.url),
    retryable: mayRetry(o, request.method, key !== null, input, fetchInit),
    keeps: true,
    // A signal that can never abort is not handed to fetch: it would only make fetch listen to it. Called detached: browsers and workerd refuse a fetch whose `this` is not the global.
    send: async (_attempt, signal) => {
      const response = await fetchImpl(...sent.args(null, signal));
      if (!isResponseLike(response)) throw new TypeError(`Expected \`fetch\` to resolve to a Response, got ${String(response)}`);
      const { status, headers } = response;
      if (!retried(status)) return { value: response, status, headers };
      return { failure: { type: 'status', status, headers }, error: new HttpError(response, request.url), value: response, status, headers };
    },
    thrown: thrownFailure,
    wanted: (failed, attempt) => shouldRetry(failed.error, { attempt }),
    done: () => true,
    result: ({ value }, release, signal) => keep(value, release, signal),
    // Retries ran out, or were not wanted: the last response itself, body unread (or the error, when there was none).
    fail: (failed: Failed<Response>, _reason, _failures, release, signal) => {
      if (failed.value) return keep(failed.value, release, signal);
      throw failed.error;
    },
    discard: (failed) => {
      if (failed.value) discardBody(failed.value);
    },
    ...(o.onRetry && { retrying: (failed, attempt, delay, paced) => o.onRetry!({ error: failed.error, attempt, delay, paced }) }),
  });
}
