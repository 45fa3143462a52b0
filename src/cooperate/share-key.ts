import type { RequestFactory } from '../core/request.js';

/** What makes two polls the same poll: method, URL and headers (names lower-cased, sorted). */
export function shareKey(request: RequestFactory): string {
  const [target, init] = request.args(null, new AbortController().signal);
  const method = init.method ?? (target instanceof Request ? target.method : 'GET');
  let headers = '';
  new Headers(init.headers).forEach((value, name) => (headers += `\n${name}: ${value}`));
  return `${method.toUpperCase()} ${request.url}${headers}`;
}
