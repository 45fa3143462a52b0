import type { HeaderReader } from './parse-retry-after.js';
import { decimal, integer, rateLimitQuota, type Quota } from './rate-limit-field.js';

/** What a server's rate-limit headers say: requests left in the window, and ms until it resets (of the quota that binds, when a `RateLimit` field lists several). */
export interface RateLimit {
  /** Requests left in the current window; `null` when no dialect says. */
  remaining: number | null;
  /** ms until the window resets (0 when it has); `null` when no dialect says. */
  reset: number | null;
}

/** Epoch seconds past this (2001-09-09) are a point in time; anything below, seconds to go. */
const EPOCH_FROM = 1e9;

/** Requests left in the window by any dialect, or null; `quota` is what the `RateLimit` field says (see {@link rateLimitQuota}). */
export const rateLimitRemaining = (headers: HeaderReader, quota: Quota): number | null =>
  quota.remaining ?? integer(headers.get('ratelimit-remaining') ?? headers.get('x-ratelimit-remaining'));

/** ms until the window resets by any dialect (capped at `max`), or null; `quota` as for {@link rateLimitRemaining}. */
export function rateLimitReset(headers: HeaderReader, quota: Quota, now: number, max: number): number | null {
  const reset = quota.reset ?? decimal(headers.get('ratelimit-reset'));
  if (reset !== null) return Math.min(reset * 1000, max);
  // Symfony's RateLimiter (and others) send X-RateLimit-Retry-After, an epoch time like GitHub's reset.
  const legacy = decimal(headers.get('x-ratelimit-reset') ?? headers.get('x-ratelimit-retry-after'));
  if (legacy === null) return null;
  return Math.min(legacy > EPOCH_FROM ? Math.max(0, legacy * 1000 - now) : legacy * 1000, max);
}

/**
 * Reads the rate-limit headers of every dialect pollite's users meet, as a
 * pure function; a malformed value is ignored (`null`), never a throw:
 *
 * - IETF draft-6: `RateLimit-Remaining: 0`, `RateLimit-Reset: 5` (seconds);
 * - IETF draft-7: `RateLimit: limit=10, remaining=0, reset=5`;
 * - IETF draft-8 and later: `RateLimit: "10-in-5sec"; r=0; t=5` (with
 *   `RateLimit-Policy` alongside, which says nothing about now), or a list
 *   of quotas, `"burst";r=4;t=1, "day";r=0;t=3600`, of which the one that
 *   binds is read: the fewest requests left, then the latest reset (here
 *   the day's);
 * - `X-RateLimit-Remaining` and `X-RateLimit-Reset` as epoch seconds
 *   (GitHub, express-rate-limit's legacy headers, koa-ratelimit's
 *   fractional ones) or as seconds to go (@fastify/rate-limit): a value
 *   past 10^9 is a point in time, measured against `now`;
 * - `X-RateLimit-Retry-After` (Symfony's RateLimiter: an epoch time; as
 *   seconds to go below 10^9), read as `X-RateLimit-Reset` when that is absent.
 *
 * The standard headers win over the `X-` ones. `reset` is capped at `max`.
 *
 * @example
 * parseRateLimit(new Headers({ ratelimit: 'limit=10, remaining=0, reset=5' }), Date.now()); // { remaining: 0, reset: 5000 }
 */
export function parseRateLimit(headers: HeaderReader, now: number, max = 300_000): RateLimit {
  const quota = rateLimitQuota(headers.get('ratelimit') ?? '');
  return { remaining: rateLimitRemaining(headers, quota), reset: rateLimitReset(headers, quota, now, max) };
}
