import { HttpError } from '../errors/http-error.js';
import { ParseError } from '../errors/parse-error.js';
import { discardBody } from '../http/body.js';
import { isRetryableStatus } from '../http/retryable-status.js';
import { errorOutcome } from '../policy/error-outcome.js';
import { isRetryableError } from '../policy/is-retryable-error.js';
import type { Failure } from '../policy/retry-decision.js';

// What one request of a poll came to, in synchronous steps: the loop sends it and awaits the fetch and
// the body in its own frame, so a request allocates no async frame of its own (one was 590 B, half of
// what a poll adds).

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

/**
 * What a response is to the loop, given its `status` and `headers` (read
 * once by the loop: each of a Response's getters costs a brand check),
 * told to `onResponse` first with when its request left: a 304 (its body
 * freed) to go on with, `null` for a 2xx whose body is to be parsed, or a
 * retryable status to decide on. Throws a `TypeError` for anything fetch
 * should never resolve to, and an `HttpError` for a status that is not
 * retried.
 */
export function answerOf(
  response: Response,
  status: unknown,
  headers: Headers | undefined,
  url: string,
  onResponse: ((response: Response, started: number) => void) | undefined,
  started: number,
): RequestResult | null {
  if (typeof status !== 'number' || typeof headers?.get !== 'function') {
    throw new TypeError(`Expected \`fetch\` to resolve to a Response, got ${String(response)}`);
  }
  onResponse?.(response, started);
  if (status === 304) {
    discardBody(response);
    return { response };
  }
  if (status >= 200 && status < 300) return null;
  if (isRetryableStatus(status)) return { failure: { type: 'status', status, headers }, response, pending: { response, url } };
  throw new HttpError(response, url);
}

/**
 * A fetch that rejected, or (with `response`) a 2xx body that could not be
 * read: a failure to retry (a network failure, a timed-out request, a
 * connection that broke while the body came in), else rethrown: the
 * abort's reason, a bug as itself (a `TypeError` from a request fetch
 * refuses, a body on a GET, is not a network failure), a bad body as a
 * `ParseError`.
 */
export function failed(error: unknown, signal: AbortSignal | undefined, timedOut: boolean, response?: Response, url?: string): RequestResult {
  if (signal?.aborted) throw signal.reason;
  if (timedOut || isRetryableError(error)) return { failure: errorOutcome(error, timedOut), error };
  throw response ? new ParseError(response, url!, error) : error;
}
