import { refuse } from '../options/check.js';
import { parseHttpDate } from './http-date.js';

/** Anything that reads a header by name: a `Headers`, or a response an error carries. */
export interface HeaderReader {
  /** The header's value, or `null` when it is absent; names are case-insensitive, as with `Headers`. */
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
  const max = options?.max ?? 300_000;
  const now = options?.now ?? Date.now();
  // Bad options would turn any header into a NaN, negative or infinite wait.
  if (!(max >= 0 && max < Infinity)) refuse('max', 'a finite number >= 0');
  if (!Number.isFinite(now)) refuse('now', 'a finite number');
  const ms = retryAfterMs(value, now);
  return ms === null ? null : Math.min(ms, max);
}

/** {@link parseRetryAfter} without options to check and uncapped: how the core reads the header. */
export function retryAfterMs(value: string | null | undefined, now: number): number | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  // Digits only, so `1e3`, `-0` and `0x10` are garbage; a 400-digit figure is Infinity, capped by the caller.
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = parseHttpDate(text, now);
  return at === null ? null : Math.max(0, at - now);
}
