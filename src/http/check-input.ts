import { redactUrl } from '../errors/redact-url.js';
import { refuse } from '../options/check.js';
import { FETCHABLE_SCHEMES, isFetchable } from './url-scheme.js';

/**
 * Checks the input of `poll`, `fetchWithRetry` and `pollOperation`: a string
 * that parses (against the page's base, if any), a URL or a Request, with a
 * scheme fetch can request and no credentials. Anything else is a
 * programming error, refused with a `TypeError` before anything is sent:
 * fetch would fail every attempt (an `ftp:` URL fails as a network error
 * would, and was retried for nothing; a URL with a password fails with a
 * message that prints it). The message names the input redacted, as every
 * message does.
 */
export function checkInput(input: unknown): void {
  const request = input as { url?: unknown; clone?: unknown } | null;
  const requestLike = typeof request?.url === 'string' && typeof request.clone === 'function';
  const base = (globalThis as { location?: { href?: string } }).location?.href;
  const text = typeof input === 'string' ? input : input instanceof URL ? input.href : requestLike ? (request?.url as string) : undefined;
  const url = text !== undefined && URL.canParse(text, base) ? new URL(text, base) : undefined;
  if (!url) {
    // A Request-like object no parser reads (a relative URL outside a page) is left to the fetch of the caller's that takes it.
    if (requestLike) return;
    return refuse('input', `a valid URL string, URL or Request, got ${typeof input === 'string' ? redactUrl(input) : String(input)}`);
  }
  if (!isFetchable(url)) refuse('input', `a URL with a scheme fetch can request (${FETCHABLE_SCHEMES}), got ${url.protocol} in ${redactUrl(url)}`);
  // fetch's own TypeError would print the URL whole, password included.
  if (url.username || url.password) refuse('input', `a URL without credentials, which fetch refuses (send an Authorization header instead), got ${redactUrl(url)}`);
}
