import { beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from '../helpers/server.js';
import { ensureBin, runCli } from './helpers/run-cli.js';
import { expectCode, serverPool } from './helpers/servers.js';

// Issue 35, item 2: the command shows the retry it declines, as poll's `give-up` event says it,
// where its progress goes (stdout, or stderr with --json), just before the error line.

beforeAll(() => ensureBin());
const servers = serverPool();

/** The progress lines, without their elapsed-time stamps. */
const states = (text: string): string[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('['))
    .map((line) => line.replace(/^\[\s*\d+\.\ds\] /, ''));

describe.concurrent('pollite <url>: a declined retry', { timeout: 60_000 }, () => {
  it('--retries used up: "503 - gave up (retries used up)", then the error line (on stderr with --json)', async () => {
    const s = await servers.http((_req, res) => sendJson(res, 503, { error: 'busy' }));
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms', '--retries', '1', '--json']);
    expectCode(run, 2);
    expect(s.requests).toHaveLength(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.split('\n');
    const gaveUp = lines.findIndex((line) => line.endsWith('503 - gave up (retries used up)'));
    expect(gaveUp, run.stderr).toBeGreaterThanOrEqual(0);
    expect(lines[gaveUp + 1]).toBe('pollite: Polling gave up after 2 failed attempts in a row (last: HTTP 503)');
  });

  it('the same on stdout without --json: the last state shown', async () => {
    const s = await servers.http((_req, res) => sendJson(res, 500, { error: 'oops' }));
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms', '--retries', '1']);
    expectCode(run, 2);
    expect(states(run.stdout)).toEqual([expect.stringMatching(/^500 - retry in \d\.\d s \(backoff\)$/), '500 - gave up (retries used up)']);
  });

  it('--timeout passes before the wait the server asked for: "503 - gave up (--timeout passed)", then the timeout line', async () => {
    // A Retry-After past the deadline is never undercut: nothing more is sent, and the command gives up when it passes.
    const s = await servers.http((_req, res) => sendJson(res, 503, { error: 'busy' }, { 'retry-after': '30' }));
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms', '-t', '1s', '--json']);
    expectCode(run, 124);
    expect(s.requests).toHaveLength(1);
    const lines = run.stderr.split('\n');
    const gaveUp = lines.findIndex((line) => line.endsWith('503 - gave up (--timeout passed)'));
    expect(gaveUp, run.stderr).toBeGreaterThanOrEqual(0);
    expect(lines[gaveUp + 1]).toMatch(/^pollite: timed out: --timeout 1\.0 s passed, after \d+\.\ds$/);
  });
});
