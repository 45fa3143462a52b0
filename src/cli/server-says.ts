import { sanitize } from './sanitize.js';

/** The longest line shown from an error body. */
const MAX_LINE = 200;

const isJson = (type: string): boolean => /[/+]json\b/i.test(type);
const isText = (type: string): boolean => type === '' || /^text\/|[/+](?:json|xml)\b|javascript|x-www-form-urlencoded/i.test(type);

/**
 * One line for what a non-2xx answer's body says, or `undefined` when it
 * says nothing readable: a problem+json (RFC 9457) body's `title` and
 * `detail` (`Job not found: there is no job 42`), or else the first
 * non-blank line of a text body. Sanitised and clipped to 200 characters.
 */
export function serverSays(excerpt: Uint8Array, contentType: string | null): string | undefined {
  const type = (contentType ?? '').trim();
  if (excerpt.byteLength === 0 || !isText(type)) return undefined;
  const text = new TextDecoder().decode(excerpt);
  if (isJson(type)) {
    const problem = problemText(text);
    if (problem !== undefined) return sanitize(problem, MAX_LINE);
  }
  const line = text.split(/\r?\n/).find((candidate) => candidate.trim() !== '');
  return line === undefined ? undefined : sanitize(line.trim(), MAX_LINE);
}

/** `title: detail`, either alone, or `undefined` when the body has neither as a string (or is cut short). */
function problemText(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { title, detail } = body as { title?: unknown; detail?: unknown };
  const parts = [title, detail].filter((part): part is string => typeof part === 'string' && part.trim() !== '').map((part) => part.trim());
  return parts.length === 0 ? undefined : parts.join(': ');
}
