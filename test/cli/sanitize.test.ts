import { describe, expect, it } from 'vitest';
import { redactCredentials, redactUrl } from '../../src/cli/redact-credentials.js';
import { sanitize, stripTerminalControls } from '../../src/cli/sanitize.js';
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

  it('stripTerminalControls keeps newlines and tabs (a multi-line body on a terminal)', () => {
    expect(stripTerminalControls('{\n\t"a": "\x1b[2J\u009b1mx\r"\n}')).toBe('{\n\t"a": "x"\n}');
  });
});

describe('redactCredentials: every printed URL and usage error', () => {
  it.each([
    ['user:hunter2@host/', '***@host/'],
    ['ftp://user:hunter2@host/a', 'ftp://***@host/a'],
    ['ws://user:hunter2@host/', 'ws://***@host/'],
    ['wss://user:hunter2@host/', 'wss://***@host/'],
    ['//user:hunter2@host/', '//***@host/'],
    ['sftp://user:hunter2@host/', 'sftp://***@host/'],
    ['http://user:hun/ter2@host/', 'http://***@host/'],
    ['http:\\\\user:hunter2@host/', 'http://***@host/'],
    ['https://TOKEN@host/', 'https://***@host/'],
    ["ftp://user:hun'ter 2@host/", 'ftp://***@host/'],
    ['--proxy=http://user:hun/ter2@host/', '--proxy=http://***@host/'],
    ['user:hun//ter2@host/', '***@host/'],
    ['user:hun=//ter2@host/', '***@host/'],
    ['http://user:hun//ter2@host/', 'http://***@host/'],
  ])('redactUrl(%j) is %j', (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
    expect(redactUrl(redacted)).toBe(redacted);
  });

  it('leaves URLs without credentials alone, an @ in their path included', () => {
    expect(redactUrl('http://127.0.0.1:3000/users/@me?x=@y')).toBe('http://127.0.0.1:3000/users/@me?x=@y');
    expect(redactUrl('https://example.test/')).toBe('https://example.test/');
  });

  it('redacts each URL-ish token of a message, quoted or not', () => {
    expect(redactCredentials("'ftp://u:hunter2@h/' is not an http(s) URL, nor is //a:b@c")).toBe("'ftp://***@h/' is not an http(s) URL, nor is //***@c");
    expect(redactCredentials('no credentials here: http://h/')).toBe('no credentials here: http://h/');
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
