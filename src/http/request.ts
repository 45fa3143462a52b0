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
   * Fresh `fetch` arguments: conditional on `since` when given and the
   * factory was made with a {@link Condition} (a poll's: see
   * `conditional`); `signal` may be left out when nothing can abort.
   */
  args(since: Validators | null, signal: AbortSignal | undefined): [string | URL | Request, RequestInit];
}

/** Makes one request conditional on `since`: sets its headers in `headers` (a fresh copy) and may set fields of `init`. */
export type Condition = (since: Validators, headers: Record<string, string>, init: RequestInit) => void;

export function requestFactory(input: string | URL | Request, init: RequestInit, condition?: Condition): RequestFactory {
  // Read as a Request: a string or a URL has none of its fields.
  const request = input as Partial<Request>;
  const headers: Record<string, string> = {};
  // No Headers for nothing: most polls give none, and a Headers costs more than the rest of the set-up.
  const copy = (from: HeadersInit | undefined): void => {
    if (from !== undefined) new Headers(from).forEach((value, key) => (headers[key] = value));
  };
  copy(request.headers);
  copy(init.headers);
  const url = request.url ?? new URL(input as string | URL, (globalThis as { location?: { href?: string } }).location?.href).href;
  return {
    url,
    method: (init.method ?? request.method ?? 'GET').toUpperCase(),
    headers,
    body: init.body ?? request.body ?? null,
    args(since, signal) {
      // A plain record, copied per request: fetch converts it to its own Headers anyway.
      const own: Record<string, string> = { ...headers };
      const sent: RequestInit = { ...init, headers: own, signal };
      if (since) condition?.(since, own, sent);
      // A Request's body can be read once, so every attempt sends a clone.
      return [request.clone?.() ?? input, sent];
    },
  };
}
