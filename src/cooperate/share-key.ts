import type { PollCall } from '../index.js';

/**
 * What makes two polls the same poll: method, URL, headers (names
 * lower-cased, sorted) and body, with its kind: fetch adds a Content-Type of
 * its own for a string (`text/plain;charset=UTF-8`, `''` included) and for
 * URLSearchParams (`application/x-www-form-urlencoded;charset=UTF-8`), none
 * for no body, so `''` and no body, or `'a=1'` and
 * `new URLSearchParams('a=1')`, are different requests. `undefined` when the
 * body cannot be compared without reading it (a stream, Blob, FormData, a
 * Request's own body): such a poll runs on its own rather than risk
 * answering one caller with another's data. The key also names the Web Lock
 * and BroadcastChannel of `shareTabs()`, which every copy of pollite in the
 * tabs of an origin must name alike, and (hashed) `cluster.share()`'s job in
 * Redis, which every process must name alike.
 *
 * @example
 * const feature: PollFeature = { run: (call, next) => (console.log(shareKey(call.request)), next(call)) };
 */
export function shareKey(request: PollCall<unknown>['request']): string | undefined {
  const { body } = request;
  const text = body == null ? '' : typeof body === 'string' ? `s${body}` : body instanceof URLSearchParams ? `u${body}` : undefined;
  if (text === undefined) return undefined;
  const headers = Object.keys(request.headers)
    .sort()
    .map((name) => `\n${name}: ${request.headers[name]}`)
    .join('');
  return `${request.method} ${request.url}${headers}\n\n${text}`;
}
