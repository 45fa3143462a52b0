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
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Removes every escape sequence, and every control character except newline
 * and tab, from a multi-line text (a body shown on a terminal with `--json`).
 */
export function stripTerminalControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, '').replace(CONTROLS_BUT_LINES, '');
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
