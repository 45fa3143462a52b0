import { defineHidden, hasErrorName, PolliteError } from './pollite-error.js';
import { redactUrl } from './redact-url.js';

/** A 2xx response whose body could not be parsed; its message names the URL redacted, as `HttpError`'s does. */
export class ParseError extends PolliteError {
  /** The URL that answered, whole (secrets included: not enumerable, and redacted in the message). */
  declare readonly url: string;
  /** The response's status. */
  declare readonly status: number;
  /** The response's `Content-Type`, or `null` when it sent none. */
  declare readonly contentType: string | null;

  constructor(response: Response, url: string, cause: unknown) {
    const contentType = response.headers.get('content-type');
    super(`Could not parse the HTTP ${response.status} body from ${redactUrl(url)} (${contentType ?? 'no content type'})`, { cause });
    this.name = 'ParseError';
    defineHidden(this, 'url', url);
    this.status = response.status;
    this.contentType = contentType;
  }
}

/** Realm-safe guard for {@link ParseError}. */
export const isParseError = (error: unknown): error is ParseError => hasErrorName(error, 'ParseError');
