import { isNetworkUrl } from '../http/url-scheme.js';

/**
 * `url` (absolute: a monitor's, a result's), once it is one pollite may
 * request. A server that names a `file:`, `ftp:`, `javascript:`, `about:`,
 * `blob:` or `data:` URL is refused at once with a `TypeError` naming
 * `namedBy` (the header or field) and the scheme, never the URL, whose
 * query may hold a token: fetch would fail on it every time, and retrying
 * that as a network failure only wastes minutes.
 */
export function requestable(url: string, namedBy: string): string {
  const parsed = new URL(url);
  if (!isNetworkUrl(parsed)) throw new TypeError(`Expected ${namedBy} to name an http or https URL, got a ${parsed.protocol} URL`);
  return url;
}
