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

/** What the realm says of itself: a page or a worker has a `location`, Node names its fetch (undici). */
interface Realm {
  location?: { href?: string };
  process?: { versions?: { undici?: string } };
}

export function requestFactory(input: string | URL | Request, init: RequestInit): RequestFactory {
  const isRequest = typeof input === 'object' && !(input instanceof URL);
  const headers: Record<string, string> = {};
  // No Headers for nothing: most polls give none, and a Headers costs more than the rest of the set-up.
  const copy = (from: HeadersInit | undefined): void => {
    if (from !== undefined) new Headers(from).forEach((value, key) => (headers[key] = value));
  };
  if (isRequest) copy(input.headers);
  copy(init.headers);
  const realm = globalThis as Realm;
  const url = isRequest ? input.url : new URL(input, realm.location?.href).href;
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
      // Node's fetch (undici) turns a conditional request into `Cache-Control: no-cache` (fetch's rule for
      // the default cache mode), and the `fresh` module of Express and Koa then never answers 304. Asked for
      // `cache: 'no-cache'`, it says `max-age=0` instead, which keeps the request conditional and fresh (and
      // costs less than a header of ours, which it would convert and check). That replaces a cache mode of
      // the caller's on a conditional request: undici has no HTTP cache, so a mode only chooses these headers
      // (no-store and reload add Pragma and no-cache), and a Cache-Control of the caller's stands in every
      // mode. Elsewhere nothing is said: browsers keep their own HTTP cache, Deno and Bun add no header,
      // and workerd refuses a cache mode.
      // (A Request's body can be read once, so every attempt sends a clone.)
      return [isRequest ? input.clone() : input, (etag || lastModified) && realm.process?.versions?.undici ? { ...init, headers: own, signal, cache: 'no-cache' } : { ...init, headers: own, signal }];
    },
  };
}
