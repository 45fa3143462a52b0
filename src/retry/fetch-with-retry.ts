import { retryCooldown } from '../cooldown/retry-cooldown.js';
import { HttpError, isHttpError } from '../errors/http-error.js';
import { discardBody } from '../http/body.js';
import { requestFactory } from '../http/request.js';
import { checkInput, refuse, signal as signalCheck } from '../options/check.js';
import { isResponseLike } from '../policy/error-outcome.js';
import { isRetryableError } from '../policy/is-retryable-error.js';
import { followBody } from './follow-body.js';
import { idempotencyKeyFor, withIdempotencyKey } from './idempotency-key.js';
import { normalizeFetchRetryOptions, type NormalizedFetchRetryOptions } from './normalize-retry-options.js';
import { isReplayableBody } from './replayable-body.js';
import type { FetchWithRetryInit } from './retry-options.js';
import { runRetryLoop } from './retry-loop.js';

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
export async function fetchWithRetry(input: string | URL | Request, init?: FetchWithRetryInit): Promise<Response> {
  checkInput(input);
  if (init !== undefined && (typeof init !== 'object' || init === null)) refuse('init', 'an object');
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
  const cooldown = o.cooldown ? retryCooldown(o.env, o.maxRetryAfter) : undefined;
  return runRetryLoop<Response>(
      {
        // A signal that can never abort is not handed to fetch: it would only make fetch listen to it.
        attempt: async (ctx, cancellable) => {
          // Called detached: browsers and workerd refuse a fetch whose `this` is not the global.
          const fetchImpl = o.fetch;
          const response = await fetchImpl(...sent.args(null, cancellable ? ctx.signal : undefined));
          if (!isResponseLike(response)) {
            throw new TypeError(`Expected \`fetch\` to resolve to a Response, got ${String(response)}`);
          }
          cooldown?.note(response, request.url);
          return response;
        },
        ...(cooldown ? { gate: () => cooldown.delay(request.url) } : {}),
        retryable: mayRetry(o, request.method, key !== null, input, fetchInit),
        failureOf: (response) =>
          o.statusCodes.includes(response.status)
            ? { error: new HttpError(response, request.url), failure: { type: 'status', status: response.status, headers: response.headers } }
            : undefined,
        discard: discardBody,
        isRetryableStatus: (status) => o.statusCodes.includes(status),
        shouldRetry: (error) => isHttpError(error) || isRetryableError(error),
        keep: (response, release, signal) => (signal ? followBody(response, signal, release) : (release(), response)),
      },
      o,
    );
}
