import { defineHidden, hasErrorName, PolliteError } from '../errors/pollite-error.js';
import { redactUrl } from '../errors/redact-url.js';
import { serverText } from '../errors/server-text.js';

/** The most characters of the server's words (its error code and message) that the message quotes. */
const DETAIL_MAX = 200;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * What the final body says went wrong, as the message quotes it: the
 * error's code (Azure's `error.code`, `BadArgument`; Google's numeric
 * `error.code` with its `error.status`, as gRPC prints them,
 * `3 INVALID_ARGUMENT`, or the number alone, `code 3`), then its `message`.
 */
function failureDetail(operation: unknown): string | undefined {
  const error = isObject(operation) ? operation.error : undefined;
  if (!isObject(error)) return undefined;
  const { code, status, message } = error;
  const named = [code, status].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  const numbered = typeof code === 'number' && Number.isFinite(code) ? code : undefined;
  const label = named !== undefined ? (numbered === undefined ? named : `${numbered} ${named}`) : numbered === undefined ? undefined : `code ${numbered}`;
  const words = typeof message === 'string' && message.trim() !== '' ? message : undefined;
  return label && words ? `${label}: ${words}` : (label ?? words);
}

/**
 * A long-running operation that ended, but not well: its monitor said it
 * failed (Azure's `status: "Failed"`, Google's `done: true` with an
 * `error`, or your `isFailed`) or was canceled.
 *
 * The message names the monitor's URL redacted (as `HttpError`'s) and what
 * the final body's `error` says: its code and message
 * (`The operation at https://.../operations/7 failed: BadArgument: The
 * disk name is invalid`), the server's text without control characters,
 * with any URL in it redacted, and clipped to 200 characters. `operation`
 * holds the body whole.
 */
export class OperationFailedError extends PolliteError {
  /** How it ended: `'failed'` or `'canceled'` (the operation's state, not an HTTP status). */
  declare readonly status: 'failed' | 'canceled';
  /** The final body of the status monitor, as parsed. */
  declare readonly operation: unknown;
  /** The URL of the status monitor, whole (not enumerable, and redacted in the message, as `HttpError`'s). */
  declare readonly url: string;

  /** `detail`: what the message quotes when the body's `error` names neither a code nor a message. */
  constructor(status: 'failed' | 'canceled', operation: unknown, url: string, detail?: string) {
    const said = failureDetail(operation) ?? detail;
    const quoted = said ? serverText(said, DETAIL_MAX) : '';
    super(`The operation at ${redactUrl(url)} ${status === 'failed' ? 'failed' : 'was canceled'}${quoted ? `: ${quoted}` : ''}`);
    this.name = 'OperationFailedError';
    this.status = status;
    this.operation = operation;
    defineHidden(this, 'url', url);
  }
}

/** Realm-safe guard for {@link OperationFailedError}. */
export const isOperationFailedError = (error: unknown): error is OperationFailedError => hasErrorName(error, 'OperationFailedError');
