import type { PollingCorsOptions } from './polling-cors-options.js';

/** A web-standard handler, as Hono, Next.js route handlers, Bun, Deno and workers use. */
export type WebHandler<TArgs extends unknown[] = []> = (
  request: Request,
  ...args: TArgs
) => Response | Promise<Response>;

/** Request headers a poller sends: conditional requests, retried writes, credentials, JSON bodies, a held status request (`Prefer: wait`). */
const ALLOW_HEADERS = 'If-None-Match, If-Modified-Since, Idempotency-Key, Authorization, Content-Type, Prefer';
/** Response headers a poller reads: validators, when to come back (every signal pollite obeys), rate limits (every dialect), where the result is, a held request. */
const EXPOSE_HEADERS =
  'ETag, Last-Modified, Retry-After, Retry-After-Ms, X-Ms-Retry-After-Ms, X-Poll-Interval, RateLimit, RateLimit-Policy, RateLimit-Reset, RateLimit-Remaining, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Retry-After, Grpc-Retry-Pushback-Ms, Location, Operation-Location, Preference-Applied';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const checkTokens = (name: string, value: unknown): readonly string[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && TOKEN.test(item))) {
    throw new TypeError(`Expected \`${name}\` to be an array of header or method names`);
  }
  return value as string[];
};

const checkOrigin = (value: string): string => {
  let parsed: string | undefined;
  try {
    parsed = new URL(value).origin;
  } catch {
    // reported below
  }
  if (parsed !== value) {
    throw new TypeError(`Expected \`origin\` to hold origins such as 'https://app.example.com', got '${value}'`);
  }
  return value;
};

/** The origin test, from the `origin` option. */
function originPolicy(origin: PollingCorsOptions['origin'], credentials: boolean): '*' | ((origin: string) => boolean) {
  if (origin === '*') {
    if (credentials) throw new TypeError('Expected `origin` to name origins when `credentials` is true, not \'*\'');
    return '*';
  }
  if (typeof origin === 'function') return (value) => origin(value) === true;
  const list = typeof origin === 'string' ? [origin] : origin;
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string')) {
    throw new TypeError("Expected `origin` to be '*', an origin, a non-empty array of origins or a function");
  }
  const allowed = new Set(list.map(checkOrigin));
  return (value) => allowed.has(value);
}

/** `ours` added to a comma-separated list, each name once (case-insensitive), the list's first. */
function mergeTokens(theirs: string | null, ours: string): string {
  const names = new Map<string, string>();
  for (const name of `${theirs ?? ''},${ours}`.split(',')) {
    const trimmed = name.trim();
    if (trimmed !== '' && !names.has(trimmed.toLowerCase())) names.set(trimmed.toLowerCase(), trimmed);
  }
  return [...names.values()].join(', ');
}

const appendVary = (headers: Headers, name: string): void => {
  const vary = headers.get('vary');
  // `Vary: *` already varies on everything.
  if (vary?.trim() !== '*') headers.set('vary', mergeTokens(vary, name));
};

/**
 * Makes a web-standard handler pollable from other origins: wraps it so its
 * answers expose to page scripts the headers a poller reads (`ETag`,
 * `Last-Modified`, `Retry-After`, `RateLimit`, `RateLimit-Policy`,
 * `RateLimit-Reset`, `RateLimit-Remaining`, `Location`,
 * `Operation-Location`), allows the request headers it sends
 * (`If-None-Match`, `If-Modified-Since`, `Idempotency-Key`,
 * `Authorization`, `Content-Type`), and answers CORS preflights itself.
 *
 * Without this, a cross-origin poller cannot read those headers, and
 * silently falls back to full responses and blind backoff.
 *
 * Requests from origins not allowed pass through unchanged (the browser
 * then hides the answer from the page); their preflights get a bare 204.
 * Throws a `TypeError` naming the bad option when the options are invalid.
 *
 * @example
 * const handler = pollingCors({ origin: 'https://app.example.com' })(async (request) =>
 *   jsonWithETag(request, await getJob(request)),
 * );
 */
export function pollingCors(options: PollingCorsOptions): <TArgs extends unknown[]>(handler: WebHandler<TArgs>) => (request: Request, ...args: TArgs) => Promise<Response> {
  if (typeof options !== 'object' || options === null) throw new TypeError('Expected `options` to be an object');
  const credentials = options.credentials ?? false;
  if (typeof credentials !== 'boolean') throw new TypeError('Expected `credentials` to be a boolean');
  const maxAge = options.maxAge ?? 7200;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new TypeError('Expected `maxAge` to be a non-negative integer');
  const isAllowed = originPolicy(options.origin, credentials);
  const allowHeaders = mergeTokens(ALLOW_HEADERS, checkTokens('allowHeaders', options.allowHeaders).join());
  const exposeHeaders = mergeTokens(EXPOSE_HEADERS, checkTokens('exposeHeaders', options.exposeHeaders).join());
  const allowMethods = (options.allowMethods === undefined ? ['GET', 'HEAD', 'POST'] : checkTokens('allowMethods', options.allowMethods)).join(', ');

  /** The CORS headers for a request from `origin` (null: none), `Vary` included. */
  const corsHeaders = (origin: string | null, headers: Headers): boolean => {
    if (isAllowed !== '*') appendVary(headers, 'Origin');
    if (origin === null) return false;
    if (isAllowed === '*') headers.set('access-control-allow-origin', '*');
    else if (isAllowed(origin)) headers.set('access-control-allow-origin', origin);
    else return false;
    if (credentials) headers.set('access-control-allow-credentials', 'true');
    return true;
  };

  return (handler) => {
    if (typeof handler !== 'function') throw new TypeError('Expected `handler` to be a function');
    return async (request, ...args) => {
      const origin = request.headers.get('origin');
      if (request.method === 'OPTIONS' && origin !== null && request.headers.has('access-control-request-method')) {
        const headers = new Headers();
        if (corsHeaders(origin, headers)) {
          headers.set('access-control-allow-methods', allowMethods);
          headers.set('access-control-allow-headers', allowHeaders);
          headers.set('access-control-max-age', String(maxAge));
        }
        return new Response(null, { status: 204, headers });
      }
      const response = await handler(request, ...args);
      if (typeof (response as Response | undefined)?.headers?.get !== 'function') {
        throw new TypeError(`Expected \`handler\` to return a Response, got ${String(response)}`);
      }
      // Copy: a handler may return a Response whose headers are immutable (one from fetch()).
      const headers = new Headers(response.headers);
      if (corsHeaders(origin, headers)) headers.set('access-control-expose-headers', mergeTokens(headers.get('access-control-expose-headers'), exposeHeaders));
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    };
  };
}
