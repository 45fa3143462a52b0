import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireOrSkip } from '../helpers/tools.js';
import { BIN, ensureBin, runCli } from './helpers/run-cli.js';
import { expectCode, serverPool } from './helpers/servers.js';

/* eslint-disable no-control-regex -- these tests are about control characters */

// Issue 33: `--json` writes a body a server controls. On a terminal no control character of it may
// reach the screen (each is shown escaped, so nothing is hidden either); into a pipe it goes byte
// for byte, so a JSON body stays the JSON the server sent.

beforeAll(() => ensureBin());
const servers = serverPool();
const hasScript = requireOrSkip('script', 'the CLI --json terminal tests');

/** `\u001b`: how a character is shown escaped, JSON's own spelling. */
const shown = (code: number): string => `\\u${code.toString(16).padStart(4, '0')}`;

/**
 * Not JSON: a clear screen (CSI 2J), an 8-bit CSI as a lone byte (0x9b, not UTF-8) and as
 * U+009B (C2 9B), BEL, NUL, DEL, bytes that are not UTF-8, an OSC title never ended (which
 * used to hide the rest of the body), line and paragraph separators, a bidi override, a tab, a
 * lone CR (which would let a later text overwrite an earlier one) and CRLF.
 */
const BINARY = Buffer.concat([
  Buffer.from('clear\x1b[2J csi8 ', 'latin1'),
  Buffer.from([0x9b]),
  Buffer.from('31m c1 \u009b1m bell\x07 nul\x00 del\x7f invalid ', 'utf8'),
  Buffer.from([0xff, 0xfe, 0xc0]),
  Buffer.from(' osc\x1b]0;pwned ls\u2028ps\u2029 bidi\u202egnp.exe\ttab cr\rover\r\nend\n', 'utf8'),
]);
const BINARY_ON_A_TERMINAL =
  `clear${shown(0x1b)}[2J csi8 \ufffd31m c1 ${shown(0x9b)}1m bell${shown(7)} nul${shown(0)} del${shown(0x7f)} invalid \ufffd\ufffd\ufffd` +
  ` osc${shown(0x1b)}]0;pwned ls${shown(0x2028)}ps${shown(0x2029)} bidi${shown(0x202e)}gnp.exe\ttab cr${shown(0x0d)}over\r\nend\n`;

/** Valid JSON whose strings hold what JSON allows raw: C1 controls, DEL, U+2028, a bidi override; and a byte that is not UTF-8. */
const JSON_BODY = Buffer.concat([
  Buffer.from('{"status":"done",\n "note":"a\u009b2Jb\u007fc\u2028d\u202ee\\u001b[31m","bytes":"', 'utf8'),
  Buffer.from([0xff]),
  Buffer.from('"}', 'utf8'),
]);
const JSON_ON_A_TERMINAL = `{"status":"done",\n "note":"a${shown(0x9b)}2Jb${shown(0x7f)}c${shown(0x2028)}d${shown(0x202e)}e\\u001b[31m","bytes":"\ufffd"}\n`;

const bodyServer = () =>
  servers.http((req, res) => {
    const body = req.url === '/binary' ? BINARY : JSON_BODY;
    res.writeHead(200, { 'content-type': req.url === '/binary' ? 'application/octet-stream' : 'application/json', 'content-length': body.length });
    res.end(body);
  });

/**
 * Runs the bin with stdout on a pseudo-terminal (util-linux `script`) and stderr, the progress,
 * on /dev/null; resolves with what the terminal received, latin1, the CR the terminal adds before each LF taken out.
 */
async function stdoutOnTerminal(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const command = `${[process.execPath, BIN, ...args].map((part) => JSON.stringify(part)).join(' ')} 2>/dev/null`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, TERM: 'xterm' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output: Buffer.concat(chunks).toString('latin1').replace(/\r\n/g, '\n') };
}

/** C0 controls but tab, newline and the CR of a CRLF; DEL, C1 controls, U+2028/2029 and the bidi controls. */
const CONTROLS = /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Whether `bytes` could move a terminal: not UTF-8 (a lone 0x9b is a CSI to a Latin-1 terminal), or holding a control. */
const unsafe = (bytes: Buffer): boolean => {
  try {
    return CONTROLS.test(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return true;
  }
};

describe.concurrent('--json and the controls a server puts in the body', { timeout: 60_000 }, () => {
  it.skipIf(!hasScript)('on a terminal, a binary body: every control character shown escaped, none sent, nothing hidden', async () => {
    const s = await bodyServer();
    const { code, output } = await stdoutOnTerminal([`${s.url}/binary`, '--json']);
    expect(code).toBe(0);
    expect(Buffer.from(output, 'latin1').toString('utf8')).toBe(BINARY_ON_A_TERMINAL);
    // The terminal's CRs were taken out above; there is no other.
    expect(unsafe(Buffer.from(output, 'latin1'))).toBe(false);
  });

  it.skipIf(!hasScript)('on a terminal, a JSON body: escaped the way JSON escapes, so what is shown is JSON with the same value', async () => {
    const s = await bodyServer();
    const { code, output } = await stdoutOnTerminal([s.url, '-u', 'status=done', '--json']);
    expect(code).toBe(0);
    const text = Buffer.from(output, 'latin1').toString('utf8');
    expect(text).toBe(JSON_ON_A_TERMINAL);
    expect(unsafe(Buffer.from(output, 'latin1'))).toBe(false);
    expect(JSON.parse(text)).toEqual(JSON.parse(new TextDecoder().decode(JSON_BODY)));
  });

  it('into a pipe: byte for byte what the server sent, so the JSON still parses', async () => {
    const s = await bodyServer();
    const json = await runCli([s.url, '-u', 'status=done', '--json']);
    expectCode(json, 0);
    expect(json.stdoutBytes.equals(JSON_BODY)).toBe(true);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'done', note: 'a\u009b2Jb\u007fc\u2028d\u202ee\x1b[31m' });
    const binary = await runCli([`${s.url}/binary`, '--json']);
    expectCode(binary, 0);
    expect(binary.stdoutBytes.equals(BINARY)).toBe(true);
    // Progress and summary went to stderr, sanitised.
    expect(unsafe(json.stderrBytes) || unsafe(binary.stderrBytes)).toBe(false);
    // The check can fail: what the server sent is unsafe.
    expect([unsafe(BINARY), unsafe(JSON_BODY)]).toEqual([true, true]);
  });
});
