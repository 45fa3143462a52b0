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
    let firstRequest: number | undefined;
    const s = await servers.http((_req, res) => {
      firstRequest ??= performance.now();
      sendJson(res, 503, { error: 503 });
    });
    // Without the fix the bin polls forever; it is killed after 15 s and exits with no code.
    const run = await runCli([s.url, '-t', '1500ms', '-i', '10ms'], { nodeArgs: FORCED_GC, timeoutMs: 15_000 });
    expectCode(run, 124);
    const [, requests, retries, bytes] = (
      /^pollite: timed out: --timeout 1\.5 s passed, after \d+\.\ds\npollite: (\d+) requests?, 0 × 304, (\d+) retr(?:y|ies), (\d+) B received in \d+\.\ds\n$/.exec(run.stderr) ?? []
    ).map(Number);
    // Every answered 503 body ({"error":503}, 13 bytes) is counted, though poll reads none; a last
    // request may still be on its way when the deadline passes (and a last failure no retry fits after is not a retry).
    expect([13 * (requests! - 1), 13 * requests!], run.stderr).toContain(bytes);
    expect(requests! - retries!).toBeLessThanOrEqual(1);
    expect(retries).toBeGreaterThanOrEqual(1);
    // From its first request (the bin is started by then) to its exit: 1.5 s, plus its exit on a busy machine.
    expect(run.exitedAt - firstRequest!).toBeLessThan(1500 + 1500);
  });

  it('fires while a request hangs, with garbage collections running', async () => {
    let firstRequest: number | undefined;
    const s = await servers.http(() => void (firstRequest ??= performance.now()));
    const run = await runCli([s.url, '-u', 'status=done', '-t', '1s'], { nodeArgs: FORCED_GC, timeoutMs: 15_000 });
    expectCode(run, 124);
    expect(run.exitedAt - firstRequest!).toBeLessThan(1000 + 1500);
    expect(s.requests).toHaveLength(1);
  });
});
