/** What the last 2xx said about its version, for a conditional request. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** Builds the arguments of each request of a poll or a retried fetch from the caller's input and init. */
export interface RequestFactory {
  /** The absolute URL, for error messages. */
  url: string;
  /** The method, upper-cased. */
  method: string;
  /** The request's own headers, names lower-cased (init's over the Request's). */
  headers: Record<string, string>;
  /** The body sent: `init.body`, else a Request input's own (always a stream), else null. */
  body: BodyInit | null;
  /**
   * Fresh `fetch` arguments: conditional on `since` when given (If-None-Match
   * with its ETag, else If-Modified-Since with its Last-Modified); `signal`
   * may be left out when nothing can abort.
   */
  args(since: Validators | null, signal: AbortSignal | undefined): [string | URL | Request, RequestInit];
}

/** Whether this realm has CORS to respect: browsers and workers have a `location`, servers do not. */
const hasOrigin = (): boolean => typeof (globalThis as { location?: unknown }).location === 'object';

export function requestFactory(input: string | URL | Request, init: RequestInit): RequestFactory {
  const isRequest = typeof input === 'object' && !(input instanceof URL);
  const headers: Record<string, string> = {};
  // No Headers for nothing: most polls give none, and a Headers costs more than the rest of the set-up.
  const copy = (from: HeadersInit | undefined): void => {
    if (from !== undefined) new Headers(from).forEach((value, key) => (headers[key] = value));
  };
  if (isRequest) copy(input.headers);
  copy(init.headers);
  const base = (globalThis as { location?: { href?: string } }).location?.href;
  const url = isRequest ? input.url : new URL(input, base).href;
  return {
    url,
    method: (init.method ?? (isRequest ? input.method : 'GET')).toUpperCase(),
    headers,
    body: init.body ?? (isRequest ? input.body : null),
    args(since, signal) {
      // A plain record, copied per request: fetch converts it to its own Headers anyway.
      const own: Record<string, string> = { ...headers };
      const etag = since?.etag;
      const lastModified = etag ? null : since?.lastModified;
      if (etag) own['if-none-match'] = etag;
      else if (lastModified) own['if-modified-since'] = lastModified;
      if (etag || lastModified) {
        // Node's fetch (undici) adds `Cache-Control: no-cache` to a conditional request, and the `fresh`
        // module of Express and Koa then never answers 304. Saying max-age=0 keeps it conditional and
        // fresh. Only where there is no CORS: in a page it would need a preflight allowance of its own.
        if (!hasOrigin() && !('cache-control' in own)) own['cache-control'] = 'max-age=0';
      }
      // A Request's body can be read once, so every attempt sends a clone.
      return [isRequest ? input.clone() : input, { ...init, headers: own, signal }];
    },
  };
}
