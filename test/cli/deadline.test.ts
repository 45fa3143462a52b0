import { beforeAll, describe, it, expect } from 'vitest';
import { sendJson } from '../helpers/server.js';
import { ensureBin, runCli } from './helpers/run-cli.js';
import { expectCode, serverPool } from './helpers/servers.js';

beforeAll(() => ensureBin());
const servers = serverPool();

/**
 * Node flags that run a full garbage collection every 20 ms inside the bin,
 * from a preloaded module: on Node 20 a collection let an
 * `AbortSignal.timeout` inside `AbortSignal.any` be dropped, and `--timeout`
 * then never fired. Collections at this rate make that certain, not luck.
 */
const FORCED_GC = ['--expose-gc', '--import', 'data:text/javascript,setInterval(() => globalThis.gc(), 20).unref()'];

describe.concurrent('--timeout', { timeout: 60_000 }, () => {
  it('fires although garbage collections run: a 503 polled with -t 1500ms exits 124 in time', async () => {
    const s = await servers.http((_req, res) => sendJson(res, 503, { error: 503 }));
    // Without the fix the bin polls forever; it is killed after 15 s and exits with no code.
    const run = await runCli([s.url, '-t', '1500ms', '-i', '10ms'], { nodeArgs: FORCED_GC, timeoutMs: 15_000 });
    expectCode(run, 124);
    const n = s.requests.length;
    // Every 503 body ({"error":503}, 13 bytes) is counted, though none is read by poll.
    expect(run.stderr).toMatch(
      new RegExp(`^pollite: timed out: --timeout 1\\.5 s passed \\(or the next try would end after it\\), after 1\\.\\ds\npollite: ${n} requests, 0 × 304, ${n} retries, ${13 * n} B received in 1\\.\\ds\n$`),
    );
    // 1.5 s, plus the bin's start and exit on a shared machine.
    expect(run.ms).toBeGreaterThanOrEqual(1500);
    expect(run.ms).toBeLessThan(4500);
    expect(n).toBeGreaterThanOrEqual(2);
  });

  it('fires while a request hangs, with garbage collections running', async () => {
    const s = await servers.http(() => undefined);
    const run = await runCli([s.url, '-u', 'status=done', '-t', '1s'], { nodeArgs: FORCED_GC, timeoutMs: 15_000 });
    expectCode(run, 124);
    expect(run.ms).toBeLessThan(4000);
    expect(s.requests).toHaveLength(1);
  });
});
