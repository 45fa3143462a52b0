import { hasErrorName, PolliteError } from './pollite-error.js';

/**
 * A response whose status pollite will not accept: a 4xx or unfollowed 3xx
 * (never retried), or a retryable status that the caller's policy gave up on.
 * The `response` is handed over with its body unread, except when `poll`
 * gave up on a retried status (a `PollGaveUpError`'s cause): that body is
 * cancelled, so its connection is not held.
 */
export class HttpError extends PolliteError {
  /** The HTTP status code. */
  declare readonly status: number;
  /** The URL that answered. */
  declare readonly url: string;
  /** The response itself, body unread. */
  declare readonly response: Response;

  constructor(response: Response, url = response.url) {
    super(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} from ${url}`);
    this.name = 'HttpError';
    this.status = response.status;
    this.url = url;
    this.response = response;
  }
}

/** Realm-safe guard for {@link HttpError}. */
export const isHttpError = (error: unknown): error is HttpError => hasErrorName(error, 'HttpError');
