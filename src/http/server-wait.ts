import { retryAfterMs, type HeaderReader } from './parse-retry-after.js';
import { parseRateLimit } from './rate-limit.js';

/**
 * How long the server asked us to stay away, ms, uncapped; `null` when it
 * did not say: the longer of its `Retry-After` and, on a 429 or when no
 * request is left in the window, the reset its rate-limit headers announce
 * (so a limiter that sends only `X-RateLimit-Reset` is still heard, and a
 * Retry-After is never undercut by a shorter reset).
 */
export function serverWait(status: number, headers: HeaderReader, now: number): number | null {
  const retryAfter = retryAfterMs(headers.get('retry-after'), now);
  const { remaining, reset } = parseRateLimit(headers, now, Infinity);
  const resetCounts = reset !== null && (status === 429 || remaining === 0);
  return resetCounts ? Math.max(retryAfter ?? 0, reset) : retryAfter;
}
