import type { RequestFactory } from '../http/request.js';

/**
 * What makes two polls the same poll: method, URL, headers (names
 * lower-cased, sorted) and body. `undefined` when the body cannot be
 * compared without reading it (a stream, Blob, FormData, a Request's own
 * body): such a poll runs on its own rather than risk answering one caller
 * with another's data.
 */
export function shareKey(request: RequestFactory): string | undefined {
  const { body } = request;
  const text = body == null ? '' : typeof body === 'string' ? body : body instanceof URLSearchParams ? body.toString() : undefined;
  if (text === undefined) return undefined;
  const headers = Object.keys(request.headers)
    .sort()
    .map((name) => `\n${name}: ${request.headers[name]}`)
    .join('');
  return `${request.method} ${request.url}${headers}\n\n${text}`;
}
