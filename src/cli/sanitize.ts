/* eslint-disable no-control-regex -- this file is about control characters */

/**
 * Terminal escape sequences, 7-bit and 8-bit: CSI (`ESC [ ... m`, `ESC [2J`),
 * OSC (`ESC ] 0;title BEL`), DCS, SOS, PM and APC strings up to their
 * terminator (or the end of the text, when a server leaves one open), and
 * the two-character escapes (`ESC c`, `ESC 7`).
 */
const ESCAPE_SEQUENCES =
  /\x1b\[[0-?]*[ -/]*[@-~]?|\x9b[0-?]*[ -/]*[@-~]?|[\x1b][\]PX^_](?:[^\x07\x1b\x9c]|\x1b(?!\\))*(?:\x07|\x1b\\|\x9c)?|[\x9d\x90\x98\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;

/**
 * C0 and C1 controls and DEL; Unicode line and paragraph separators; and the
 * bidirectional overrides and isolates, which reorder what a terminal shows
 * (a reason phrase that displays as something it is not).
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * What {@link escapeTerminalControls} shows escaped: the same characters
 * but tab and newline, and CR only where it does not end a line (alone it
 * would let later text overwrite what came before).
 */
const ESCAPED_ON_A_TERMINAL = /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Shows every control character of a multi-line text (a body printed on a
 * terminal with `--json`) as a `\u001b`-style escape, but tab, newline and
 * the CR of a CRLF. With no ESC or C1 character left, no escape sequence
 * can start, and nothing is hidden: an OSC left open does not swallow the
 * rest, as removing it whole would. A JSON text stays JSON with the same
 * value where those characters are inside strings, the only place JSON
 * allows them.
 */
export function escapeTerminalControls(text: string): string {
  return text.replace(ESCAPED_ON_A_TERMINAL, (control) => `\\u${control.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The one sanitiser for text a server controls (reason phrases, header
 * values, body excerpts, JSON values, error messages that quote them) before
 * it reaches a terminal or a log line: escape sequences are removed, every
 * other control character (newlines and tabs too) becomes a space, and the
 * result is clipped to `max` characters with `…`. Idempotent.
 */
export function sanitize(text: string, max = 500): string {
  const clean = text.replace(ESCAPE_SEQUENCES, '').replace(CONTROLS, ' ');
  if (clean.length <= max) return clean;
  // Clip on a code point, never between the halves of a surrogate pair.
  const points = Array.from(clean);
  return points.length <= max ? clean : `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}
