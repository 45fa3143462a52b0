import { redactUrl } from './redact-url.js';

/**
 * C0 and C1 controls and DEL, the line and paragraph separators, and the
 * bidirectional marks, overrides and isolates, which reorder what a
 * terminal or a log viewer shows; with the white space around them.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const CONTROLS = /[\s\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;

/** A URL with an authority, up to the first space or quote: what a message may quote with a secret in it. */
const URLS = /\b[a-z][a-z\d+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * Text a server wrote (an error code, an error message from a body), as
 * an error message of pollite quotes it: each run of control characters
 * and white space becomes one space, every URL in it is redacted as `redactUrl` redacts
 * (a signed URL quoted by the server keeps its path, not its signature),
 * and it is clipped to `max` characters, the last one then `…`, never
 * between the halves of a surrogate pair.
 */
export function serverText(text: string, max: number): string {
  const clean = text.replace(CONTROLS, ' ').trim().replace(URLS, (url) => redactUrl(url));
  if (clean.length <= max) return clean;
  const points = Array.from(clean);
  return points.length <= max ? clean : `${points.slice(0, max - 1).join('')}…`;
}
