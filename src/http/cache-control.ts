import type { HeaderReader } from './parse-retry-after.js';

/**
 * How long an answer stays fresh, ms (RFC 9111: `Cache-Control: max-age`
 * minus `Age`, 0 once it has passed), or `null` when it does not say:
 * no `max-age`, a malformed one, or `no-cache` / `no-store` beside it
 * (the answer must be asked for again each time). `s-maxage` is for shared
 * caches and is not read; the first `max-age` counts. A figure past 2^1024
 * is `Infinity`, capped by the caller. One pass, so hostile text costs
 * linear time.
 *
 * @example
 * freshFor(new Headers({ 'cache-control': 'public, max-age=60', age: '15' })); // 45000
 */
export function freshFor(headers: HeaderReader): number | null {
  const field = headers.get('cache-control');
  if (!field) return null;
  let maxAge: number | null = null;
  for (const part of field.toLowerCase().split(',')) {
    const directive = part.trim();
    if (directive === 'no-cache' || directive === 'no-store') return null;
    const value = /^max-age="?(\d+)"?$/.exec(directive)?.[1];
    if (value !== undefined) maxAge ??= Number(value);
  }
  if (maxAge === null) return null;
  const age = /^\d+$/.test(headers.get('age')?.trim() ?? '') ? Number(headers.get('age')) : 0;
  const left = maxAge - age;
  // Infinity - Infinity is NaN: a hostile pair of figures is fresh for no time, not NaN.
  return left > 0 ? left * 1000 : 0;
}
