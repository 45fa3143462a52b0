// `pollite --state FILE`: a run killed during a Retry-After wait, run again with the same file, continues the
// same poll: no request before the server asked, the state file gone once it ends.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../src/resume/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { ensureBin, runCli, spawnCli } from '../cli/helpers/run-cli.js';

let server: TestServer | undefined;
let dir: string | undefined;
beforeAll(() => ensureBin());
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('pollite --state FILE', { timeout: 60_000 }, () => {
  it('killed during a Retry-After wait, run again: the same poll, no request before the server asked, the file deleted at the end', async () => {
    const arrived: number[] = [];
    let askedUntil = 0;
    server = await startServer((_req, res) => {
      arrived.push(Date.now());
      if (arrived.length === 1) {
        askedUntil = Date.now() + 3000;
        return sendJson(res, 503, { error: 'busy' }, { 'retry-after': '3' });
      }
      return sendJson(res, 200, { status: 'done' });
    });
    dir = mkdtempSync(join(tmpdir(), 'pollite-cli-state-'));
    const file = join(dir, 'job.state');
    const args = [`${server.url}/jobs/1`, '-u', 'status=done', '-i', '100ms', '--state', file];

    const first = spawnCli(args);
    for (;;) {
      if (askedUntil > 0 && existsSync(file) && (readCheckpoint(readFileSync(file, 'utf8'), 'pollite-cli').notBefore ?? 0) >= askedUntil) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    first.child.kill('SIGKILL');
    await first.done;
    expect(arrived).toHaveLength(1);

    const second = await runCli(args);
    expect(second.code, second.stderr).toBe(0);
    expect(arrived).toHaveLength(2);
    expect(arrived[1]).toBeGreaterThanOrEqual(askedUntil);
    expect(existsSync(file)).toBe(false);
  });

  it('a state file of another URL is refused: exit 64, nothing sent', async () => {
    const arrived: number[] = [];
    server = await startServer((_req, res) => (arrived.push(Date.now()), sendJson(res, 200, { status: 'done' })));
    dir = mkdtempSync(join(tmpdir(), 'pollite-cli-state-'));
    const file = join(dir, 'job.state');
    const other = `${server.url}/jobs/2`;
    const saved = { v: 1, kind: 'poll', origin: server.url, request: { method: 'GET', url: other }, url: other, failures: 0, savedAt: Date.now() };
    writeFileSync(file, JSON.stringify(saved));
    const run = await runCli([`${server.url}/jobs/1`, '-u', 'status=done', '--state', file]);
    expect(run.code, run.stderr).toBe(64);
    expect(run.stderr).toContain('was not resumed (request)');
    expect(arrived).toHaveLength(0);
    expect(existsSync(file)).toBe(true);
  });
});
