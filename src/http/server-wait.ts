import { retryAfterMs, type HeaderReader } from './parse-retry-after.js';
import { rateLimitRemaining, rateLimitReset } from './rate-limit.js';
import { rateLimitQuota } from './rate-limit-field.js';

/**
 * Whether `headers` may say when to come back: false only for a `Headers`
 * without a `Retry-After` or any rate-limit name. Most answers say nothing,
 * and one pass over the (lower-cased) names costs a fraction of the four
 * reads it saves (each `Headers.get` checks its name char by char).
 */
const maySay = (headers: HeaderReader): boolean => {
  if (!(headers instanceof Headers)) return true;
  for (const name of headers.keys()) if (name === 'retry-after' || name.includes('ratelimit')) return true;
  return false;
};

/**
 * How long the server asked us to stay away, ms, uncapped; `null` when it
 * did not say: the longer of its `Retry-After` and, on a 429 or when no
 * request is left in the window, the reset its rate-limit headers announce
 * (so a limiter that sends only `X-RateLimit-Reset` is still heard, and a
 * Retry-After is never undercut by a shorter reset). Of several quotas in
 * one `RateLimit` field, the one that binds speaks (see `rateLimitQuota`).
 */
export function serverWait(status: number, headers: HeaderReader, now: number): number | null {
  if (!maySay(headers)) return null;
  const retryAfter = retryAfterMs(headers.get('retry-after'), now);
  const quota = rateLimitQuota(headers.get('ratelimit') ?? '');
  // The reset is read only when it counts: most answers say nothing of a limit, and every header read costs.
  const reset = status === 429 || rateLimitRemaining(headers, quota) === 0 ? rateLimitReset(headers, quota, now, Infinity) : null;
  return reset === null ? retryAfter : Math.max(retryAfter ?? 0, reset);
}
