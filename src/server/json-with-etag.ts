import { strongETag } from './entity-tag.js';
import { evaluateIfNoneMatch } from './if-none-match.js';

/** The `init` of {@link jsonWithETag}: a `ResponseInit` whose status, if given, is 2xx. */
export interface JsonWithETagInit extends ResponseInit {
  /**
   * A 2xx status for the full answer.
   * @default 200
   */
  status?: number;
}

const isRequestLike = (value: unknown): value is Request =>
  typeof (value as Request | null)?.method === 'string' &&
  typeof (value as Request | null)?.headers?.get === 'function';

/**
 * Answers a poll with JSON and a strong ETag computed from the serialised
 * bytes (SHA-256 via Web Crypto). A `GET` or `HEAD` whose `If-None-Match`
 * matches (weak comparison, `*` or a list, per RFC 9110) gets `304 Not
 * Modified` with no body; every other request, a malformed `If-None-Match`
 * included, gets the full answer. Both carry `Cache-Control: no-cache`, so
 * caches revalidate rather than serve stale progress. The full answer
 * carries the body's `Content-Length`, and so does the answer to `HEAD`,
 * which has no body (RFC 9110 §9.3.2: the fields a `GET` would get).
 * Headers from `init` are kept (and override `Content-Type` and
 * `Cache-Control`); the ETag and `Content-Length` are always the computed
 * ones.
 *
 * Rejects with a `TypeError` naming `request`, `data` or `init` when one is
 * unusable (for example `data` that `JSON.stringify` cannot serialise).
 *
 * @example
 * // A route handler in any runtime with Request/Response
 * export const GET = (request: Request) => jsonWithETag(request, getJob(id));
 */
export async function jsonWithETag(request: Request, data: unknown, init?: JsonWithETagInit): Promise<Response> {
  if (!isRequestLike(request)) throw new TypeError('Expected `request` to be a Request');
  if (init !== undefined && (typeof init !== 'object' || init === null)) {
    throw new TypeError('Expected `init` to be an object');
  }
  const status = init?.status ?? 200;
  // 204 and 205 may carry no body, and this answer always has one.
  if (!Number.isInteger(status) || status < 200 || status > 299 || status === 204 || status === 205) {
    throw new TypeError(`Expected \`init.status\` to be a 2xx status that carries a body (not 204 or 205), got ${String(status)}`);
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch (error) {
    throw new TypeError(`Expected \`data\` to be serialisable as JSON: ${(error as Error).message}`, { cause: error });
  }
  if (text === undefined) throw new TypeError(`Expected \`data\` to be serialisable as JSON, got ${typeof data}`);

  const bytes = new TextEncoder().encode(text);
  const etag = await strongETag(bytes);
  const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-cache' });
  new Headers(init?.headers).forEach((value, key) => headers.set(key, value));
  headers.set('etag', etag);
  // Set even where the body's length would be known anyway: a HEAD answer has no body to tell it, and
  // through node:http a streamed body would otherwise go out chunked, its length unknown until the end.
  headers.set('content-length', String(bytes.byteLength));

  const readOnly = request.method === 'GET' || request.method === 'HEAD';
  if (readOnly && evaluateIfNoneMatch(request.headers.get('if-none-match'), etag) === 'match') {
    // RFC 9110 §15.4.5: a 304 carries the headers a 200 would, minus the body's own.
    headers.delete('content-type');
    headers.delete('content-length');
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === 'HEAD' ? null : bytes, { ...init, status, headers });
}
