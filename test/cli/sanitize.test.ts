import { describe, expect, it } from 'vitest';
import { escapeTerminalControls, sanitize } from '../../src/cli/sanitize.js';
import { serverSays } from '../../src/cli/server-says.js';

describe('sanitize: every server-controlled string before a terminal or a log line', () => {
  it.each([
    ['a title (OSC ... BEL) and a clear screen (CSI 2J)', 'Not\x1b]0;pwned\x07 \x1b[2JFound', 'Not Found'],
    ['an OSC ended by ST, and a colour', 'a\x1b]8;;http://x.test\x1b\\b\x1b[31;1mc', 'abc'],
    ['an OSC never ended swallows the rest', 'ok\x1b]0;title', 'ok'],
    ['8-bit CSI and OSC', 'a\u009b2Jb\u009d0;t\u0007c', 'abc'],
    ['two-character escapes', 'a\x1bcb\x1b7c', 'abc'],
    ['newlines, tabs, CR, NUL and DEL become spaces', 'a\r\nb\tc\u0000d\u007fe', 'a  b c d e'],
    ['bidi overrides and line separators', 'abc\u202edcba\u2066x\u2028y', 'abc dcba x y'],
    ['a lone ESC', 'a\x1b', 'a'],
  ])('%s', (_what, text, clean) => {
    expect(sanitize(text)).toBe(clean);
    expect(sanitize(sanitize(text))).toBe(clean);
  });

  it('clips to max characters with an ellipsis, never between the halves of a surrogate pair', () => {
    expect(sanitize('x'.repeat(600))).toBe(`${'x'.repeat(499)}…`);
    expect(sanitize('abcdef', 4)).toBe('abc…');
    expect(sanitize('😀😀😀😀', 3)).toBe('😀😀…');
    expect(sanitize('abc', 3)).toBe('abc');
  });

  it('escapeTerminalControls shows each control escaped, but newlines, tabs and the CR of a CRLF (a multi-line body on a terminal)', () => {
    expect(escapeTerminalControls('{\r\n\t"a": "\x1b[2J\u009b1mx\r\u0000\u007f\u2028\u202e\u2066"\n}')).toBe(
      '{\r\n\t"a": "\\u001b[2J\\u009b1mx\\u000d\\u0000\\u007f\\u2028\\u202e\\u2066"\n}',
    );
    // An OSC left open hides nothing that follows it.
    expect(escapeTerminalControls('a\x1b]0;title\nrest')).toBe('a\\u001b]0;title\nrest');
    expect(escapeTerminalControls('plain \u00e9 \ud83d\ude00')).toBe('plain \u00e9 \ud83d\ude00');
  });
});

describe('serverSays: one line for a non-2xx body', () => {
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
  it.each([
    ['application/problem+json', '{"title":"Job not found","detail":"there is no job 42"}', 'Job not found: there is no job 42'],
    ['application/problem+json; charset=utf-8', '{"title":"Job not found"}', 'Job not found'],
    ['application/json', '{"detail":"  there is no job 42 "}', 'there is no job 42'],
    ['application/json', '{"error":404}', '{"error":404}'],
    ['application/problem+json', '{"title":"cut sh', '{"title":"cut sh'],
    ['text/plain', '\n\n  no such job  \nsecond line', 'no such job'],
    [null, 'no such job', 'no such job'],
    ['application/problem+json', '{"title":"\\u001b]0;pwned\\u0007Gone","detail":"a\\nb"}', 'Gone: a b'],
  ])('%s %j says %j', (type, body, line) => {
    expect(serverSays(bytes(body), type)).toBe(line);
  });

  it('says nothing for an empty, blank or binary body', () => {
    expect(serverSays(bytes(''), 'text/plain')).toBeUndefined();
    expect(serverSays(bytes(' \n \n'), 'text/plain')).toBeUndefined();
    expect(serverSays(bytes('GIF89a'), 'image/gif')).toBeUndefined();
  });

  it('clips a long line to 200 characters', () => {
    expect(serverSays(bytes('x'.repeat(4096)), 'text/plain')).toBe(`${'x'.repeat(199)}…`);
  });
});
