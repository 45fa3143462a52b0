/** The `init` of {@link retryLater}: a `ResponseInit` plus an optional body; the status is the first argument. */
export interface RetryLaterInit extends Omit<ResponseInit, 'status'> {
  /**
   * The body, for example a JSON explanation (set its `Content-Type` in `headers`).
   * @default null
   */
  body?: BodyInit | null;
}

const LARGEST_HTTP_DATE = Date.UTC(9999, 11, 31, 23, 59, 59);

/** The `Retry-After` field value for `after`, validated. */
function retryAfterValue(after: number | Date): string {
  if (typeof after === 'number') {
    if (!Number.isFinite(after) || after < 0) {
      throw new TypeError(`Expected \`after\` to be a finite number of seconds >= 0 or a Date, got ${String(after)}`);
    }
    // Delay-seconds are digits: a larger number prints in exponent form (1e+21), which no client reads.
    if (after > Number.MAX_SAFE_INTEGER) throw new TypeError(`Expected \`after\` to be at most 2^53 - 1 seconds, got ${String(after)}`);
    return String(Math.ceil(after));
  }
  if (after instanceof Date || Object.prototype.toString.call(after) === '[object Date]') {
    const time = (after as Date).getTime();
    if (!(time >= 0 && time <= LARGEST_HTTP_DATE)) {
      throw new TypeError('Expected `after` to be a valid Date between 1970 and 9999');
    }
    // IMF-fixdate has whole seconds: round up, so a client never comes back early.
    return new Date(Math.ceil(time / 1000) * 1000).toUTCString();
  }
  throw new TypeError(`Expected \`after\` to be a finite number of seconds >= 0 or a Date, got ${typeof after}`);
}

/**
 * A `429 Too Many Requests` or `503 Service Unavailable` that tells clients
 * when to come back: `Retry-After` in delay-seconds for a number (rounded
 * up to whole seconds, as the header allows no fractions) or as an
 * IMF-fixdate for a `Date` (rounded up to the next whole second).
 *
 * Throws a `TypeError` naming `status` or `after` when one is invalid.
 *
 * @example
 * if (overloaded) return retryLater(503, 30);
 * if (tooMany) return retryLater(429, new Date(windowEndsAt));
 */
export function retryLater(status: 429 | 503, after: number | Date, init?: RetryLaterInit): Response {
  if (status !== 429 && status !== 503) {
    throw new TypeError(`Expected \`status\` to be 429 or 503, got ${String(status)}`);
  }
  if (init !== undefined && (typeof init !== 'object' || init === null)) {
    throw new TypeError('Expected `init` to be an object');
  }
  const headers = new Headers(init?.headers);
  headers.set('retry-after', retryAfterValue(after));
  const { body = null, ...rest } = init ?? {};
  return new Response(body, { ...rest, status, headers });
}
