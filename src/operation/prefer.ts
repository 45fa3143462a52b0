// RFC 7240 `Prefer` and `Preference-Applied`, as far as pollite speaks them: `respond-async` and
// `wait=N` asked for, `wait` recognised as applied. Pure functions.

import type { HeaderReader } from '../http/parse-retry-after.js';

/** The names of the preferences in a `Prefer` or `Preference-Applied` value, lower-cased: `respond-async, wait=10` → respond-async, wait. */
const namesIn = (value: string): string[] => value.split(',').map((item) => item.split(/[=;]/, 1)[0]!.trim().toLowerCase());

/**
 * A `Prefer` value that asks for each of `wanted` (`respond-async`,
 * `wait=10`) over `given` (the caller's own, perhaps none): a preference
 * the caller already states, by name, is left as the caller wrote it.
 *
 * @example withPreferences('return=minimal', ['wait=10']) // 'return=minimal, wait=10'
 */
export function withPreferences(given: string | null | undefined, wanted: readonly string[]): string {
  const stated = given ? namesIn(given) : [];
  const added = wanted.filter((preference) => !stated.includes(namesIn(preference)[0]!));
  return [given, ...added].filter(Boolean).join(', ');
}

/**
 * Whether an answer says the server applied the `wait` preference
 * (`Preference-Applied: wait=10`, or `respond-async, wait=10`): it held the
 * request until something changed or that time passed. Only the server's
 * word counts: a slow answer without it is no hold, but perhaps a server
 * that struggles.
 */
export const appliesWait = (headers: HeaderReader): boolean => namesIn(headers.get('preference-applied') ?? '').includes('wait');
