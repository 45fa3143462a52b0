import type { QueryFunctionContext, QueryKey } from '@tanstack/query-core';
import { HttpError, ParseError } from '../index.js';
import { discardBody, parseJson, redactUrl } from '../kit/index.js';

/** Options of {@link conditionalQueryFn}. */
export interface ConditionalQueryOptions<TData> {
  /** Merged into every request (headers, credentials...). The query's signal is always added. @default {} */
  init?: RequestInit;
  /**
   * Reads a 2xx body. A throw becomes a pollite `ParseError`.
   * @default JSON, with 204 and an empty body read as `null` (TanStack Query refuses `undefined` as data)
   */
  parse?: (response: Response) => Promise<TData>;
  /** The fetch to use. @default globalThis.fetch, looked up at each request */
  fetch?: typeof fetch;
}

/** The last 2xx a query received: the URL, its ETag, and the data it carried. */
interface Validated {
  url: string;
  etag: string;
  data: unknown;
}

// Keyed by the Query object, so an entry lives exactly as long as the query in its cache.
const byQuery = new WeakMap<object, Validated>();

/** The query this call fetches for, when the context names its client (query-core >= 5.62). */
function queryOf(context: Partial<QueryFunctionContext<QueryKey>>): object | undefined {
  const cache = context.client?.getQueryCache?.();
  return context.queryKey ? cache?.find({ queryKey: context.queryKey, exact: true }) : undefined;
}

/** pollite's JSON parser, with "no body" as `null`: TanStack Query v5 rejects a query whose data is `undefined`. */
const parseJsonOrNull = async (response: Response): Promise<unknown> => (await parseJson(response)) ?? null;

/**
 * A TanStack Query `queryFn` that polls `url` conditionally: it sends
 * `If-None-Match` with the ETag of the query's last 2xx answer from that
 * URL and, on `304 Not Modified`, returns that answer's data, so a
 * `refetchInterval` costs no body while nothing changes. Throws pollite's
 * `HttpError` on any other non-2xx answer (its `response`, body unread,
 * carries the Retry-After that `retryDelay` reads) and `ParseError` on an
 * unreadable body. Passes the query's `signal` to fetch, so cancelling the
 * query cancels the request.
 *
 * @example
 * useQuery({
 *   queryKey: ['job', id],
 *   queryFn: conditionalQueryFn(`/api/jobs/${id}`),
 *   refetchInterval: refetchUntil((job) => job.status === 'done', 2000),
 *   retry, retryDelay,
 * });
 */
export function conditionalQueryFn<TData = unknown>(
  url: string | URL,
  options: ConditionalQueryOptions<TData> = {},
): (context: QueryFunctionContext<QueryKey>) => Promise<TData> {
  // A relative URL is resolved against the page when the query runs (as fetch does), so creating the
  // queryFn during server rendering does not throw; here only malformed ones are refused.
  if (!((typeof url === 'string' && URL.canParse(url, 'http://relative.invalid/')) || url instanceof URL)) {
    throw new TypeError(`Expected \`url\` to be a valid URL string or URL, got ${typeof url === 'string' ? redactUrl(url) : String(url)}`);
  }
  if (typeof options !== 'object' || options === null) throw new TypeError('Expected `options` to be an object');
  const { init = {}, parse = parseJsonOrNull as (response: Response) => Promise<TData> } = options;
  if (typeof init !== 'object' || init === null) throw new TypeError('Expected `init` to be an object');
  if (typeof parse !== 'function') throw new TypeError('Expected `parse` to be a function');
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new TypeError('Expected `fetch` to be a function');
  const resolve = (): string => {
    const base = (globalThis as { location?: { href?: string } }).location?.href;
    return URL.canParse(url, base) ? new URL(url, base).href : String(url);
  };
  // Without a client in the context (older query-core), remember per queryFn instead.
  const fallback = new Map<string, Validated>();

  return async (context) => {
    const href = resolve();
    const query = queryOf(context);
    const previous = query ? byQuery.get(query) : fallback.get(href);
    const last = previous?.url === href ? previous : undefined;
    const headers = new Headers(init.headers);
    if (last) headers.set('if-none-match', last.etag);
    const signal = init.signal ? AbortSignal.any([init.signal, context.signal]) : context.signal;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    const response = await fetchImpl(href, { ...init, headers, signal });

    if (response.status === 304 && last) {
      discardBody(response);
      return last.data as TData;
    }
    if (!response.ok) throw new HttpError(response, href);
    const etag = response.headers.get('etag');
    let data: TData;
    try {
      data = await parse(response);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new ParseError(response, href, error);
    }
    const forget = (): void => void (query ? byQuery.delete(query) : fallback.delete(href));
    if (etag === null) forget();
    else if (query) byQuery.set(query, { url: href, etag, data });
    else fallback.set(href, { url: href, etag, data });
    return data;
  };
}
