import { deadline } from '../env/deadline.js';
import { abortable } from '../env/settle.js';
import { HttpError } from '../errors/http-error.js';
import { ParseError } from '../errors/parse-error.js';
import { timeoutError } from '../errors/timeout-error.js';
import { discardBody } from '../http/body.js';
import type { RequestFactory, Validators } from '../http/request.js';
import { isRetryableStatus } from '../http/retryable-status.js';
import { errorOutcome } from '../policy/error-outcome.js';
import { isRetryableError } from '../policy/is-retryable-error.js';
import type { Failure } from '../policy/retry-decision.js';
import type { PollSettings } from './feature.js';

/** The `HttpError` a retried status would be, made only when polling gives up on it (an Error's stack costs more than the rest of a request). */
export interface PendingHttpError {
  response: Response;
  url: string;
}

/** What one request of a poll came to: an answer to go on with, or a failure to decide on. Anything else is thrown. */
export type RequestResult =
  | { response: Response; data?: unknown; failure?: undefined; error?: undefined; pending?: undefined }
  | { failure: Failure; error: unknown; response?: Response; pending?: undefined }
  | { failure: Failure; error?: undefined; response: Response; pending: PendingHttpError };

/** A fetch rejection or a body read that failed: a failure to retry, or a bug to throw (`undefined`). */
const failureOf = (error: unknown, timedOut: boolean): Failure | undefined =>
  timedOut ? { type: 'timeout', error } : isRetryableError(error) ? errorOutcome(error) : undefined;

/**
 * Sends one request of a poll and reads its answer. Resolves with a 304,
 * a parsed 2xx (`data`) or a failure worth a retry decision (a retryable
 * status, a network failure, a timed-out request). Rejects with
 * `signal.reason` on abort, an `HttpError` for a status that is not
 * retried, a `ParseError`, and anything else as itself: a `TypeError` from
 * a request fetch refuses (a body on a GET) is a bug, not a network failure.
 * `onResponse` is told each answer as it arrives, with when the request left.
 */
export async function sendRequest(
  request: RequestFactory,
  s: PollSettings,
  since: Validators | null,
  signal: AbortSignal | undefined,
  onResponse: ((response: Response, started: number) => void) | undefined,
): Promise<RequestResult> {
  const started = s.env.now();
  // A fresh signal per request (undici leaks listeners onto reused ones), and none when nothing can abort.
  const own = deadline(s.env, s.requestTimeout, () => timeoutError(`Request timed out after ${s.requestTimeout} ms`), signal);
  const attemptSignal = own.signal;
  try {
    let response: Response;
    try {
      response = await abortable(Promise.resolve(s.fetch(...request.args(since, attemptSignal))), attemptSignal);
    } catch (error) {
      return failed(error, signal, own.passed());
    }
    if (typeof response?.status !== 'number' || typeof response.headers?.get !== 'function') {
      throw new TypeError(`Expected \`fetch\` to resolve to a Response, got ${String(response)}`);
    }
    onResponse?.(response, started);
    const { status } = response;
    if (status === 304) {
      discardBody(response);
      return { response };
    }
    if (status >= 200 && status < 300) {
      try {
        return { response, data: await abortable(s.parse(response), attemptSignal) };
      } catch (error) {
        // The connection broke while the body was read: a network failure like any other, not a bad body.
        if (signal?.aborted || own.passed() || isRetryableError(error)) return failed(error, signal, own.passed());
        throw new ParseError(response, request.url, error);
      }
    }
    if (isRetryableStatus(status)) return { failure: { type: 'status', status, headers: response.headers }, response, pending: { response, url: request.url } };
    throw new HttpError(response, request.url);
  } finally {
    own.stop();
  }
}

/** A request that failed: rethrows the abort's reason or a bug, else the failure to decide on. */
function failed(error: unknown, signal: AbortSignal | undefined, timedOut: boolean): RequestResult {
  if (signal?.aborted) throw signal.reason;
  const failure = failureOf(error, timedOut);
  if (!failure) throw error;
  return { failure, error };
}
