import { isTimeoutError } from '../errors/timeout-error.js';
import { isRetryableStatus } from '../http/retryable-status.js';

/**
 * Codes of transient network failures: Node's and undici's (a malformed
 * answer's `HPE_` parser codes among them: the server's fault, like a 5xx),
 * and Bun's.
 */
const NETWORK_CODE =
  /^(?:E(?:CONN(?:RESET|REFUSED|ABORTED)|TIMEDOUT|PIPE|AI_AGAIN|(?:NET|HOST)(?:UNREACH|DOWN))|UND_ERR_(?:SOCKET|CLOSED|(?:CONNECT|HEADERS|BODY)_TIMEOUT|HEADERS_OVERFLOW|RES_CONTENT_LENGTH_MISMATCH)|HPE_\w+|Connection(?:Refused|Closed)|FailedToOpenSocket)$/;

/** Codes of the network failures that are timeouts: a retry after one costs a budget more. */
const TIMEOUT_CODE = /^(?:ETIMEDOUT|UND_ERR_\w+_TIMEOUT)$/;

/**
 * The words each runtime's fetch uses for "the network failed": Node
 * (undici), Chromium, Firefox, Safari, Cloudflare Workers, Deno 1, Bun; and
 * for a body read that broke off: Chromium, undici (with UND_ERR_SOCKET on
 * its cause), Deno.
 */
const NETWORK_MESSAGE =
  /^(?:fetch failed|Failed to fetch|NetworkError when attempting to fetch resource\.?|Load failed|Network connection lost\.?|error sending request (?:for|from) .*|.*Unable to connect\. Is the computer able to access the url\?|network error|terminated|error (?:reading a body from connection|decoding response body).*)$/;

/** Failures that look like the network's but that another try can only repeat. */
const HOPELESS = /redirect count exceeded|too many redirects/i;

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  status?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * The first value `read` finds on `error`, its `cause` chain or an
 * AggregateError's members (four levels deep at most).
 */
function find<V>(error: unknown, read: (e: ErrorLike) => V | undefined, depth = 0): V | undefined {
  if (typeof error !== 'object' || error === null || depth > 4) return undefined;
  const e = error as ErrorLike;
  let found = read(e);
  if (Array.isArray(e.errors)) for (const member of e.errors) found ??= find(member, read, depth + 1);
  return found ?? find(e.cause, read, depth + 1);
}

const codeOf = (error: unknown): string | undefined => find(error, (e) => (typeof e.code === 'string' ? e.code : undefined));

/** Codes of requests that never reached a server: refused, no route, a name not resolved yet (Node, undici, Bun). */
const UNREACHABLE_CODE = /^(?:ECONNREFUSED|E(?:HOST|NET)UNREACH|EAI_AGAIN|ConnectionRefused)$/;

/** True for a request that never reached a server (connection refused, no route, DNS not answering yet): it cost no server anything. */
export const isUnreachable = (error: unknown): boolean => UNREACHABLE_CODE.test(codeOf(error) ?? '');

/** True for a timed-out attempt or a network timeout (ETIMEDOUT and undici's timeouts). */
export const isTimeoutFailure = (error: unknown): boolean => isTimeoutError(error) || TIMEOUT_CODE.test(codeOf(error) ?? '');

/**
 * The default `shouldRetry`, and how `poll` tells a network failure from a
 * bug: true for failures worth another try.
 *
 * - network failures: fetch's own error in Node, browsers, Deno, Bun and
 *   workers, and Node / undici / Bun codes such as ECONNRESET,
 *   ECONNREFUSED, ETIMEDOUT, EPIPE, EAI_AGAIN, UND_ERR_SOCKET and a
 *   malformed answer's parser codes (also when found on `cause`);
 * - a timed-out attempt (a `TimeoutError`);
 * - an `HttpError` with a retryable status (408, 429, 5xx).
 *
 * False for everything else: aborts (`AbortError`), other HTTP errors,
 * programming bugs (a `TypeError` from a bad request: a body on a GET,
 * an unknown `redirect` mode), a redirect loop (`redirect count
 * exceeded`: every try follows it again), DNS names that do not exist
 * (ENOTFOUND), non-errors. It checks names and codes, not classes, so
 * errors from other realms and other copies of pollite are judged alike.
 */
export function isRetryableError(error: unknown): boolean {
  const e = error as ErrorLike | null;
  if (typeof e !== 'object' || e === null || e.name === 'AbortError') return false;
  if (e.name === 'TimeoutError') return true;
  if (e.name === 'HttpError') return typeof e.status === 'number' && isRetryableStatus(e.status);
  if (find(e, (x) => (typeof x.message === 'string' && HOPELESS.test(x.message)) || undefined)) return false;
  const code = codeOf(e);
  // undici's own assertion on a malformed answer (`HTTP/1.1  200`): the server's fault, like its parser's codes.
  if (code === 'ERR_ASSERTION' && e.message === 'fetch failed') return true;
  return code !== undefined ? NETWORK_CODE.test(code) : typeof e.message === 'string' && NETWORK_MESSAGE.test(e.message);
}
