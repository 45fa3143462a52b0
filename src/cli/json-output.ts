import type { OutputStream } from './display/display.js';
import { escapeTerminalControls } from './sanitize.js';

/**
 * `--json`: the final body on stdout. Into a file or a pipe it goes exactly
 * as received, byte for byte (not re-encoded, not re-indented, no newline
 * added), even where it is not valid UTF-8: the JSON parser read it through
 * U+FFFD replacements, but the file gets what the server sent. On a
 * terminal, where a server's ESC, C1 or bidi character would move the
 * cursor, retitle the window or reorder the text, it is decoded (bytes that
 * are not UTF-8 become U+FFFD) with each control character shown escaped
 * (`\u001b`; newlines and tabs kept), and ended with a newline.
 */
export function writeBody(stream: OutputStream, bytes: Uint8Array): void {
  if (!stream.isTTY) {
    if (bytes.byteLength > 0) stream.write(bytes);
    return;
  }
  const text = escapeTerminalControls(new TextDecoder().decode(bytes));
  if (text !== '') stream.write(text.endsWith('\n') ? text : `${text}\n`);
}
