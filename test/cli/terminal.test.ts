import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { sendJson, startServer } from '../helpers/server.js';
import { requireOrSkip } from '../helpers/tools.js';
import { BIN, ensureBin } from './helpers/run-cli.js';

/* eslint-disable no-control-regex -- these tests are about escape sequences */

// A real terminal for the bin: util-linux `script` runs it on a pseudo-terminal.
const hasScript = requireOrSkip('script', 'the CLI terminal tests');

beforeAll(() => ensureBin());

async function onTerminal(env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  let n = 0;
  const server = await startServer((_req, res) => {
    n += 1;
    sendJson(res, 200, n >= 3 ? { status: 'done', progress: 100 } : { status: 'running', progress: 45 });
  });
  onTestFinished(() => server.close());
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${server.url} -u status=done -i 300ms`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, TERM: 'xterm', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}

describe.skipIf(!hasScript)('on a terminal', { timeout: 120_000 }, () => {
  it('rewrites one status line in place, in colour', async () => {
    const { code, output } = await onTerminal({});
    expect(code).toBe(0);
    expect(output).toContain('\r\x1b[2K');
    expect(output).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\x1b\[39m\x1b\[2m \d+\.\ds · \d requests? · \x1b\[22m\x1b\[32m200 running 45%/);
    expect(output).toContain('\x1b[32mdone\x1b[39m: ');
  });

  it('keeps the live line but drops colour under NO_COLOR', async () => {
    const { code, output } = await onTerminal({ NO_COLOR: '1' });
    expect(code).toBe(0);
    expect(output).toMatch(/\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d+\.\ds · \d requests? · 200 running 45%/);
    expect(output).not.toMatch(/\x1b\[\d+m/);
  });
});

