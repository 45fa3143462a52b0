import { isTimeoutError } from '../errors/timeout-error.js';
import { isRetryableStatus } from '../http/retryable-status.js';

/** Error codes of transient network failures: Node's, undici's and Bun's. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ConnectionRefused',
  'ConnectionClosed',
  'FailedToOpenSocket',
]);

/** The words each runtime's fetch uses for "the network failed". */
const NETWORK_MESSAGES = [
  /^fetch failed$/, // Node (undici)
  /^Failed to fetch$/, // Chromium
  /^NetworkError when attempting to fetch resource\.?$/, // Firefox
  /^Load failed$/, // Safari
  /^Network connection lost\.?$/, // Cloudflare Workers
  /^error sending request (?:for|from) /, // Deno 1 (Deno 2 says "fetch failed")
  /Unable to connect\. Is the computer able to access the url\?$/, // Bun, also with a code before it
];

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  status?: unknown;
  cause?: unknown;
  errors?: unknown;
}

const asErrorLike = (value: unknown): ErrorLike | undefined =>
  typeof value === 'object' && value !== null ? (value as ErrorLike) : undefined;

/** Codes of the network failures that are timeouts: a retry after one costs a budget more. */
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** True for a timed-out attempt or a network timeout (ETIMEDOUT and undici's timeouts). */
export function isTimeoutFailure(error: unknown): boolean {
  return isTimeoutError(error) || TIMEOUT_CODES.has(codeOf(asErrorLike(error)) ?? '');
}

/** The first error code found on `error`, its `cause` chain or an AggregateError's members. */
function codeOf(error: ErrorLike | undefined, depth = 0): string | undefined {
  if (!error || depth > 4) return undefined;
  if (typeof error.code === 'string') return error.code;
  if (Array.isArray(error.errors)) {
    for (const member of error.errors) {
      const code = codeOf(asErrorLike(member), depth + 1);
      if (code) return code;
    }
  }
  return codeOf(asErrorLike(error.cause), depth + 1);
}

/**
 * The default `shouldRetry`: true for failures worth another try.
 *
 * - network failures: fetch's own error in Node, browsers, Deno, Bun and
 *   workers, and Node / undici / Bun codes such as ECONNRESET,
 *   ECONNREFUSED, ETIMEDOUT, EPIPE, EAI_AGAIN, UND_ERR_SOCKET (also when
 *   found on `cause`);
 * - a timed-out attempt (a `TimeoutError`);
 * - an `HttpError` with a retryable status (408, 429, 5xx).
 *
 * False for everything else: aborts (`AbortError`), other HTTP errors,
 * programming bugs, DNS names that do not exist (ENOTFOUND), non-errors.
 * It checks names and codes, not classes, so errors from other realms and
 * other copies of pollite are judged alike.
 */
export function isRetryableError(error: unknown): boolean {
  const e = asErrorLike(error);
  if (!e) return false;
  if (e.name === 'AbortError') return false;
  if (e.name === 'TimeoutError') return true;
  if (e.name === 'HttpError') return typeof e.status === 'number' && isRetryableStatus(e.status);
  const code = codeOf(e);
  if (code !== undefined) return NETWORK_CODES.has(code);
  return typeof e.message === 'string' && NETWORK_MESSAGES.some((pattern) => pattern.test(e.message as string));
}
