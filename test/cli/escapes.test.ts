import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireOrSkip } from '../helpers/tools.js';
import { BIN, ensureBin, runCli } from './helpers/run-cli.js';
import { expectCode, serverPool } from './helpers/servers.js';

/* eslint-disable no-control-regex -- these tests are about escape sequences */

beforeAll(() => ensureBin());
const servers = serverPool();
const hasScript = requireOrSkip('script', 'the CLI escapes test on a terminal');

/** Writes one raw answer and closes: `head` is sent as latin1 bytes, so a reason phrase can hold anything. */
const send = (socket: Socket, head: string, body: string, headers: string[] = []): void => {
  const bytes = Buffer.from(body, 'utf8');
  socket.end(Buffer.concat([Buffer.from(`${head}\r\n${[...headers, `Content-Length: ${bytes.length}`, 'Connection: close'].join('\r\n')}\r\n\r\n`, 'latin1'), bytes]));
};

/** A title (OSC ... BEL), a clear screen (CSI 2J), and an 8-bit CSI (U+009B, UTF-8 C2 9B) in every string the server controls. */
const HOSTILE = '\x1b]0;pwned\x07\x1b[2J';
const hostileServer = () =>
  servers.raw((socket, index) => {
    if (index === 0) {
      // JSON escapes decode to the real characters: the value shown in the status line carries them.
      send(socket, 'HTTP/1.1 200 OK', JSON.stringify({ status: `run${HOSTILE}ning\u009b31m` }), ['Content-Type: application/json']);
    } else if (index === 1) {
      send(socket, `HTTP/1.1 503 Busy${HOSTILE}\xc2\x9b2J`, JSON.stringify({ error: HOSTILE }), ['Content-Type: application/json', `X-Evil: a${HOSTILE}`]);
    } else {
      const problem = JSON.stringify({ title: `Job${HOSTILE} gone`, detail: `no job\r\n${HOSTILE}42\u009b1m` });
      send(socket, `HTTP/1.1 404 Not${HOSTILE} \xc2\x9b31mFound`, problem, ['Content-Type: application/problem+json']);
    }
  });

/** Any byte of an escape, BEL or other C0 control but the newline, or a C1 control (as UTF-8). */
const FORBIDDEN = /[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]/;

describe.concurrent('escape sequences a server sends never reach the output', { timeout: 60_000 }, () => {
  it('plain output (a pipe), verbose: only newlines and printable text', async () => {
    const s = await hostileServer();
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms', '-v']);
    expectCode(run, 2);
    const bytes = Buffer.concat([run.stdoutBytes, run.stderrBytes]).toString('latin1');
    expect(bytes).not.toMatch(FORBIDDEN);
    expect(bytes).not.toContain('pwned');
    expect(run.stdout).toContain('] 200 running\n');
    expect(run.stderr.split('\n').slice(0, 2)).toEqual([`pollite: HTTP 404 Not Found from ${s.url}`, 'pollite: the server says: Job gone: no job  42']);
  });

  it.skipIf(!hasScript)('on a terminal: nothing but the live line\'s own escapes', async () => {
    const s = await hostileServer();
    const command = [process.execPath, BIN, s.url, '-u', 'status=done', '-i', '10ms', '-v'].map((part) => JSON.stringify(part)).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, TERM: 'xterm' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    const output = Buffer.concat(chunks).toString('latin1');
    expect(output).toContain('200 running');
    expect(output).toContain(`HTTP 404 Not Found from ${s.url}`);
    // What pollite itself writes on a terminal: CR, erase line, colours; and the terminal's CR before LF.
    const own = output.replace(/\r\x1b\[2K/g, '').replace(/\x1b\[\d+(?:;\d+)*m/g, '').replace(/\r\n/g, '\n');
    expect(own).not.toMatch(FORBIDDEN);
    expect(own).not.toContain('pwned');
  });
});

