import { HttpError } from '../errors/http-error.js';
import { ParseError } from '../errors/parse-error.js';
import { parseJson } from '../http/body.js';
import { fetchWithRetry } from '../retry/fetch-with-retry.js';
import type { FetchRetryOptions } from '../retry/retry-options.js';
import type { OperationAnswer } from './operation-options.js';
import { atResult, googleResponse, resolveUrl, resourceLocation, type MonitorHeader } from './operation-state.js';

/** What the start told of the operation, for finding its result. */
export interface OperationStart {
  /** The start request's URL and method. */
  url: string;
  method: string;
  /** The start answer's `Location`, resolved. */
  location: string | undefined;
  /** The monitor, and the header that named it (`option`: `operationUrl`). */
  monitor: { url: string; via: MonitorHeader | 'option' };
}

/** A URL a server named for the result, and what named it (for the error that refuses it). */
export interface ResultTarget {
  url: string;
  namedBy: string;
}

/**
 * Where the result of a succeeded operation is to be fetched, or
 * `undefined` when the final answer holds it (a redirect to the result,
 * Google's `response`): Azure's `resourceLocation`, the final answer's
 * `Location`, the start's `Location` (beside an Operation-Location or
 * Azure-AsyncOperation monitor), the start URL of a PUT or PATCH polled
 * through one (Azure's rule for those).
 */
export function resultUrl(final: OperationAnswer, start: OperationStart): ResultTarget | undefined {
  if (atResult(final, start.monitor.url) || googleResponse(final.body)) return undefined;
  const field = resolveUrl(resourceLocation(final.body), final.url);
  if (field) return { url: field, namedBy: "the final status's resourceLocation" };
  const header = resolveUrl(final.headers.get('location'), final.url);
  if (header) return { url: header, namedBy: "the final status's Location header" };
  const beside = start.monitor.via === 'operation-location' || start.monitor.via === 'azure-asyncoperation';
  if (!beside) return undefined;
  if (start.location && start.location !== start.monitor.url) return { url: start.location, namedBy: "the start answer's Location header" };
  return start.method === 'PUT' || start.method === 'PATCH' ? { url: start.url, namedBy: 'the start URL' } : undefined;
}

/** The result in the final answer itself: Google's `response`, else the body. */
export const resultIn = (final: OperationAnswer): unknown => googleResponse(final.body)?.value ?? final.body;

/**
 * GETs the result at `url` (retried as `fetchWithRetry` retries a GET) and
 * parses it. Rejects with an `HttpError` for a status other than 2xx, a
 * `ParseError` for a body that does not parse; a body whose reading the
 * caller's signal or the operation's deadline stopped rejects with the
 * signal's reason, or with what `checkDeadline` throws past the deadline
 * (the `TimeoutError` that `poll` gives in the same case).
 */
export async function fetchResult(
  url: string,
  init: RequestInit,
  retry: FetchRetryOptions,
  parse: ((response: Response) => Promise<unknown>) | undefined,
  checkDeadline: () => void,
): Promise<unknown> {
  const response = await fetchWithRetry(url, { ...init, retry });
  if (!response.ok) throw new HttpError(response, url);
  try {
    return await (parse ?? parseJson)(response);
  } catch (error) {
    if (init.signal?.aborted) throw init.signal.reason;
    checkDeadline();
    throw new ParseError(response, url, error);
  }
}
