/** Builds the arguments of each poll request from the caller's input and init. */
export interface RequestFactory {
  /** The absolute URL, for error messages. */
  url: string;
  /** Fresh `fetch` arguments carrying `etag` (when given) as If-None-Match; `signal` may be left out when nothing can abort. */
  args(etag: string | null, signal: AbortSignal | undefined): [string | URL | Request, RequestInit];
}

export function requestFactory(input: string | URL | Request, init: RequestInit): RequestFactory {
  const isRequest = typeof input === 'object' && !(input instanceof URL);
  const headers = new Headers(isRequest ? input.headers : undefined);
  new Headers(init.headers).forEach((value, key) => headers.set(key, value));
  // A plain record, copied per request: fetch converts it to its own Headers
  // anyway, so a Headers object of ours per request would be built twice.
  const record: Record<string, string> = {};
  headers.forEach((value, key) => (record[key] = value));
  const base = (globalThis as { location?: { href?: string } }).location?.href;
  const url = isRequest ? input.url : new URL(input, base).href;
  return {
    url,
    args(etag, signal) {
      const requestHeaders = etag === null ? { ...record } : { ...record, 'if-none-match': etag };
      // A Request's body can be read once, so every attempt sends a clone.
      return [isRequest ? input.clone() : input, { ...init, headers: requestHeaders, signal }];
    },
  };
}
