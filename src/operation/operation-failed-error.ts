import { defineHidden, hasErrorName, PolliteError } from '../errors/pollite-error.js';
import { redactUrl } from '../errors/redact-url.js';

/**
 * A long-running operation that ended, but not well: its monitor said it
 * failed (Azure's `status: "Failed"`, Google's `done: true` with an
 * `error`, or your `isFailed`) or was canceled.
 */
export class OperationFailedError extends PolliteError {
  /** How it ended: `'failed'` or `'canceled'` (the operation's state, not an HTTP status). */
  declare readonly status: 'failed' | 'canceled';
  /** The final body of the status monitor, as parsed. */
  declare readonly operation: unknown;
  /** The URL of the status monitor, whole (not enumerable, and redacted in the message, as `HttpError`'s). */
  declare readonly url: string;

  constructor(status: 'failed' | 'canceled', operation: unknown, url: string, detail?: string) {
    super(`The operation at ${redactUrl(url)} ${status === 'failed' ? 'failed' : 'was canceled'}${detail ? `: ${detail}` : ''}`);
    this.name = 'OperationFailedError';
    this.status = status;
    this.operation = operation;
    defineHidden(this, 'url', url);
  }
}

/** Realm-safe guard for {@link OperationFailedError}. */
export const isOperationFailedError = (error: unknown): error is OperationFailedError => hasErrorName(error, 'OperationFailedError');
