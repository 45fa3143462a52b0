import { UsageError } from './usage-error.js';

/**
 * Reads repeated `-H 'Name: value'` options into a `Headers`. A name must be
 * a valid HTTP token and the value must be sendable; anything else is a
 * usage error, reported without echoing the value (it may be a secret).
 */
export function parseHeaders(lines: readonly string[]): Headers {
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim();
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
      throw new UsageError(`--header needs 'Name: value', got a header without a valid name`);
    }
    try {
      headers.append(name, line.slice(colon + 1).trim());
    } catch {
      throw new UsageError(`--header '${name}' has a value that cannot be sent`);
    }
  }
  return headers;
}

/** The headers as verbose output shows them: names only, every value hidden. */
export const redactedHeaderLines = (headers: Headers): string[] => [...headers.keys()].map((name) => `${displayName(name)}: ***`);

const displayName = (name: string): string => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
