import { retryCooldown } from '../cooperate/retry-cooldown.js';
import { requestFactory } from '../core/request.js';
import { checkInput } from '../core/validate.js';
import { HttpError } from '../errors/http-error.js';
import { discardBody } from '../http/body.js';
import { idempotencyKeyFor, withIdempotencyKey } from './idempotency-key.js';
import { normalizeFetchRetryOptions, type NormalizedFetchRetryOptions } from './normalize-retry-options.js';
import { isReplayableBody } from './replayable-body.js';
import type { FetchWithRetryInit } from './retry-options.js';
import { runRetryLoop } from './retry-loop.js';
import { sendAttempt } from './send-attempt.js';

/** Methods that change state: sent once unless the call carries an Idempotency-Key. */
const WRITES = new Set(['POST', 'PATCH']);

const isRequest = (input: string | URL | Request): input is Request => typeof input === 'object' && !(input instanceof URL);

/** Whether this call may be sent more than once. */
function mayRetry(o: NormalizedFetchRetryOptions, method: string, keyed: boolean, init: RequestInit): boolean {
  // A Request input is cloned for every attempt; a stream in `init.body` is consumed by the first.
  if (!isReplayableBody(init.body)) return false;
  if (WRITES.has(method)) return keyed;
  return keyed || o.methods.includes(method);
}

/**
 * `fetch`, with retries: resolves with a `Response` whatever its status,
 * like `fetch`, but retries network failures and `statusCodes` responses
 * (408, 429, 500, 502, 503, 504) of `methods` (the idempotent ones). A
 * valid Retry-After is waited out (at least that long, at most 1.2 times,
 * capped by `maxRetryAfter`), otherwise `backoff`. Discarded responses have
 * their bodies cancelled; when retries run out (or the `budget` cannot pay)
 * the last response resolves, body unread.
 *
 * POST and PATCH are sent once unless `idempotencyKey` is set; then every
 * attempt carries the same `Idempotency-Key` header. A `ReadableStream`
 * body is sent once. `init.signal` and `retry.signal` both cancel the
 * request in flight and any wait (rejecting with the reason); `timeout`
 * rejects with a `TimeoutError` DOMException. Bad options reject with a
 * `TypeError` before anything is sent.
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
  if (init !== undefined && (typeof init !== 'object' || init === null)) throw new TypeError('Expected `init` to be an object');
  const { retry: options, ...fetchInit } = init ?? {};
  // As with fetch, `init.signal` replaces a Request's own signal.
  const o = normalizeFetchRetryOptions(options, fetchInit.signal ?? (isRequest(input) ? input.signal : undefined));
  const method = (fetchInit.method ?? (isRequest(input) ? input.method : 'GET')).toUpperCase();

  const headers = new Headers(isRequest(input) ? input.headers : undefined);
  new Headers(fetchInit.headers).forEach((value, name) => headers.set(name, value));
  const key = idempotencyKeyFor(o.idempotencyKey, headers);
  const request = requestFactory(input, key === null ? fetchInit : { ...fetchInit, headers: withIdempotencyKey(headers, key) });

  const cooldown = o.cooldown ? retryCooldown(o.env, o.maxRetryAfter) : undefined;
  return runRetryLoop<Response>(
    {
      // A signal that can never abort is not handed to fetch: it would only
      // make fetch listen to it, and the loop create it.
      attempt: (ctx, cancellable) => sendAttempt(o.fetch, request, cancellable ? ctx.signal : undefined, cooldown),
      ...(cooldown ? { gate: () => cooldown.delay(request.url) } : {}),
      retryable: mayRetry(o, method, key !== null, fetchInit),
      failureOf: (response) =>
        o.statusCodes.includes(response.status)
          ? {
              error: new HttpError(response, request.url),
              outcome: { type: 'status', status: response.status, retryAfter: response.headers.get('retry-after') },
            }
          : undefined,
      discard: discardBody,
      isRetryableStatus: (status) => o.statusCodes.includes(status),
    },
    o,
  );
}
