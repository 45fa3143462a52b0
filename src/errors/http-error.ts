import { defineHidden, hasErrorName, PolliteError } from './pollite-error.js';
import { redactUrl } from './redact-url.js';

/**
 * A response whose status pollite will not accept: a 4xx or unfollowed 3xx
 * (never retried), or a retryable status that the caller's policy gave up on.
 * The `response` is handed over with its body unread, except when `poll`
 * gave up on a retried status (a `PollGaveUpError`'s cause): that body is
 * cancelled, so its connection is not held.
 *
 * The message names the URL redacted (see `redactUrl`: no userinfo, query
 * values or fragment) and the server's reason phrase without control
 * characters, clipped to 80; `url` and `response` hold it whole, for the code that
 * catches the error, and are not enumerable, so logging the error prints
 * neither.
 */
export class HttpError extends PolliteError {
  /** The HTTP status code. */
  declare readonly status: number;
  /** The URL that answered, whole (secrets included: not enumerable, and redacted in the message). */
  declare readonly url: string;
  /** The response itself, body unread (not enumerable: it repeats the URL). */
  declare readonly response: Response;

  constructor(response: Response, url = response.url) {
    // The reason phrase is the server's: no control character (an escape sequence in a log) and 80 characters at most.
    // eslint-disable-next-line no-control-regex -- control characters are what it removes
    const reason = String(response.statusText ?? '').replace(/[\0-\x1f\x7f-\x9f]/g, '').slice(0, 80);
    super(`HTTP ${response.status}${reason ? ` ${reason}` : ''} from ${redactUrl(url)}`);
    this.name = 'HttpError';
    this.status = response.status;
    defineHidden(this, 'url', url);
    defineHidden(this, 'response', response);
  }
}

/** Realm-safe guard for {@link HttpError}. */
export const isHttpError = (error: unknown): error is HttpError => hasErrorName(error, 'HttpError');
