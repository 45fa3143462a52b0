import { HttpError } from '../errors/http-error.js';
import type { Failed } from './attempt-spec.js';

/**
 * A response that failed by its status, for the engine to retry or end
 * with: its `HttpError` is made only if it is ever seen (an Error's stack
 * costs more than the rest of a request). `poll` and `fetchWithRetry` both
 * fail their statuses so.
 */
export function failedStatus(response: Response, status: number, headers: Headers, url: string): Failed<Response> {
  let error: HttpError | undefined;
  return {
    failure: { type: 'status', status, headers },
    get error() {
      return (error ??= new HttpError(response, url));
    },
    value: response,
    status,
    headers,
  };
}
