import type { RequestFactory } from '../core/request.js';

/**
 * What makes two polls the same poll: method, URL, headers (names
 * lower-cased, sorted) and body. `undefined` when the body cannot be
 * compared without reading it (a stream, Blob, FormData, a Request's own
 * body): such a poll runs on its own rather than risk answering one caller
 * with another's data.
 */
export function shareKey(request: RequestFactory): string | undefined {
  const [target, init] = request.args(null, new AbortController().signal);
  const method = init.method ?? (target instanceof Request ? target.method : 'GET');
  let headers = '';
  new Headers(init.headers).forEach((value, name) => (headers += `\n${name}: ${value}`));
  const body = init.body ?? (target instanceof Request ? target.body : null);
  const text = body == null ? '' : typeof body === 'string' ? body : body instanceof URLSearchParams ? body.toString() : undefined;
  return text === undefined ? undefined : `${method.toUpperCase()} ${request.url}${headers}\n\n${text}`;
}
