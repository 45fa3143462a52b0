/** Options of {@link pollingCors}. */
export interface PollingCorsOptions {
  /**
   * Which page origins may poll: `'*'` for any, one origin, a list, or a
   * predicate. Named origins are reflected in `Access-Control-Allow-Origin`
   * with `Vary: Origin`; each must be a bare origin such as
   * `'https://app.example.com'` (no path, no trailing slash).
   * @example origin: ['https://app.example.com', 'http://localhost:5173']
   */
  origin: '*' | string | readonly string[] | ((origin: string) => boolean);
  /**
   * Request headers pages may send, besides those always allowed:
   * `If-None-Match`, `If-Modified-Since`, `Idempotency-Key`, `Authorization`
   * and `Content-Type`.
   * @example allowHeaders: ['X-Request-Id']
   * @default []
   */
  allowHeaders?: readonly string[];
  /**
   * Response headers pages may read, besides those always exposed: `ETag`,
   * `Last-Modified`, `Retry-After`, `RateLimit`, `RateLimit-Policy`,
   * `RateLimit-Reset`, `RateLimit-Remaining`, `Location` and
   * `Operation-Location`.
   * @example exposeHeaders: ['X-Progress']
   * @default []
   */
  exposeHeaders?: readonly string[];
  /**
   * Methods allowed by a preflight. GET, HEAD and POST need no preflight of
   * their own; list others (PUT, DELETE...) to allow them.
   * @default ['GET', 'HEAD', 'POST']
   */
  allowMethods?: readonly string[];
  /**
   * Send `Access-Control-Allow-Credentials: true` (cookies, HTTP auth).
   * Requires named origins: `'*'` with credentials is refused.
   * @default false
   */
  credentials?: boolean;
  /**
   * How long a browser may cache a preflight, seconds. Every poll that sends
   * `If-None-Match` needs one, so a long cache halves the requests.
   * Chromium caps it at 7200, Firefox at 86400.
   * @default 7200
   */
  maxAge?: number;
}
