import { parseHttpDate } from './http-date.js';

/** Anything that reads a header by name: a `Headers`, or a response an error carries. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** Options of {@link parseRetryAfter}. */
export interface ParseRetryAfterOptions {
  /** The time to measure an HTTP-date against, epoch ms. @default Date.now() */
  now?: number;
  /** Largest wait returned, ms. @default 300000 */
  max?: number;
}

/**
 * Reads a `Retry-After` header value as a wait in milliseconds.
 *
 * - digits only (after trimming): that many seconds;
 * - an HTTP-date (IMF-fixdate, RFC 850 or asctime): the time until then,
 *   0 when it has passed;
 * - both clamped to `max`;
 * - anything else (empty, negative, decimal, garbage, ISO dates): `null`,
 *   so the caller falls back to its own backoff.
 *
 * @example
 * parseRetryAfter('120'); // 120000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', { now: Date.parse('2015-10-21T07:27:00Z') }); // 60000
 */
export function parseRetryAfter(value: string | null | undefined, options?: ParseRetryAfterOptions): number | null {
  if (typeof value !== 'string') return null;
  const max = options?.max ?? 300_000;
  // Bad options would turn any header into a NaN, negative or infinite wait.
  if (!(max >= 0 && max < Infinity)) throw new TypeError('Expected `max` to be a finite number >= 0');
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, max);
  const now = options?.now ?? Date.now();
  if (!Number.isFinite(now)) throw new TypeError('Expected `now` to be a finite number');
  const at = parseHttpDate(text, now);
  return at === null ? null : Math.min(Math.max(0, at - now), max);
}
