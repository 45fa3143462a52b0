import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUSED_URL, scripted, sendJson, startServer as startRawServer, type Handler, type TestServer } from '../helpers/server.js';
import { lagProbe } from '../cluster/helpers/lag.js';
import { BIN, CONTROL_CHARACTERS, ensureBin, runCli, SIMULATE_BUNDLE, type CliRun } from './helpers/run-cli.js';

// Each test has its own server and child process, so they run side by side.
// Servers close when the file ends: the global onTestFinished cannot tell
// concurrent tests apart, and closed one test's server when another finished.
const servers = new Set<TestServer>();
beforeAll(() => ensureBin());
afterAll(() => Promise.all([...servers].map((server) => server.close())));
const startServer = async (handler: Handler): Promise<TestServer> => {
  const server = await startRawServer(handler);
  servers.add(server);
  return server;
};

const json = (body: unknown, headers: Record<string, string> = {}) => (res: Parameters<typeof sendJson>[0]) => sendJson(res, 200, body, headers);
const status = (code: number, headers: Record<string, string> = {}) => (res: Parameters<typeof sendJson>[0]) => sendJson(res, code, { error: code }, headers);
const serve = (...script: Parameters<typeof scripted>[0]): Promise<TestServer> => startServer(scripted(script));
const lines = (text: string): string[] => text.trim().split('\n');
/** The exit code, with what the bin printed when it is not the one expected. */
const expectCode = (run: CliRun, code: number): void =>
  expect(run.code, `exit ${run.code} (signal ${run.signal})\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(code);

// Generous limits: the bin is a real child process, and CI machines are shared.
describe.concurrent('pollite <url>: conditions and exit codes', { timeout: 120_000 }, () => {
  it('exits 0 when an --until value matches, after exactly the requests it needed', async () => {
    const s = await serve(json({ status: 'queued' }), json({ status: 'running' }), json({ status: 'failed' }));
    const run = await runCli([`${s.url}/jobs/1`, '--until', 'status=done,failed', '-i', '10ms']);
    expectCode(run, 0);
    expect(s.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /jobs/1', 'GET /jobs/1', 'GET /jobs/1']);
    expect(lines(run.stdout).at(-1)).toMatch(new RegExp(`^done: ${s.url}/jobs/1 \\(status=done,failed\\) after \\d+\\.\\ds$`));
  });

  it('accepts several --until conditions: any of them', async () => {
    const s = await serve(json({ status: 'running', progress: 40 }), json({ status: 'running', progress: 100 }));
    const run = await runCli([s.url, '-u', 'status=done', '-u', 'progress>=100', '-i', '10ms']);
    expectCode(run, 0);
    expect(s.requests).toHaveLength(2);
    expect(run.stdout).toContain('(progress>=100)');
  });

  it('exits 1 when --fail-when matches, even if --until would too', async () => {
    const s = await serve(json({ status: 'running' }), json({ status: 'failed', done: true }));
    const run = await runCli([s.url, '-u', 'done=true', '-f', 'status=failed,cancelled', '-i', '10ms']);
    expectCode(run, 1);
    expect(s.requests).toHaveLength(2);
    expect(lines(run.stdout).at(-1)).toMatch(/^failed: .* \(--fail-when status=failed,cancelled\) after/);
  });

  it('follows a dot path into arrays', async () => {
    const s = await serve(
      json({ items: [{ state: 'ready' }, { state: 'pending' }] }),
      json({ items: [{ state: 'ready' }, { state: 'ready' }] }),
    );
    const run = await runCli([s.url, '--until', 'items.1.state=ready', '-i', '10ms']);
    expectCode(run, 0);
    expect(s.requests).toHaveLength(2);
    expect(run.stdout).toContain('200 items.1.state="pending"');
  });

  it('without --until, the first 2xx succeeds, whatever its body (a health check)', async () => {
    const s = await startServer(
      scripted([
        status(503, { 'retry-after': '0' }),
        (res) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('OK');
        },
      ]),
    );
    const run = await runCli([`${s.url}/health`, '--timeout', '10s', '-i', '10ms']);
    expectCode(run, 0);
    expect(s.requests.map((r) => r.path)).toEqual(['/health', '/health']);
  });

  it('exits 2 at once on a status that is not retried', async () => {
    const s = await serve(status(404));
    const run = await runCli([s.url, '-u', 'status=done']);
    expectCode(run, 2);
    expect(s.requests).toHaveLength(1);
    expect(run.stderr).toContain(`pollite: HTTP 404 Not Found from ${s.url}/`);
  });

  it('exits 2 when it gives up: --retries 0 tries a failure once, and names what failed last', async () => {
    const s = await serve(status(500));
    const run = await runCli([s.url, '-u', 'status=done', '--retries', '0']);
    expectCode(run, 2);
    expect(s.requests).toHaveLength(1);
    expect(run.stderr).toMatch(/^pollite: Polling gave up after 1 failed attempt in a row \(last: HTTP 500\)\npollite: 1 request, 0 × 304, 0 retries, \d+ B received in \d+\.\ds\n$/);
  });

  it('--retries 2 tries failures in a row again twice: 3 requests, 2 retries, then gives up', async () => {
    const s = await serve(status(500));
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms', '--retries', '2']);
    expectCode(run, 2);
    expect(s.requests).toHaveLength(3);
    expect(run.stderr).toMatch(/^pollite: Polling gave up after 3 failed attempts in a row \(last: HTTP 500\)\npollite: 3 requests, 0 × 304, 2 retries, \d+ B received in \d+\.\ds\n$/);
  });

  it('names a refused connection when it gives up', async () => {
    const run = await runCli([REFUSED_URL, '--retries', '0']);
    expectCode(run, 2);
    expect(run.stderr).toMatch(/^pollite: Polling gave up after 1 failed attempt in a row: ECONNREFUSED\n/);
  });

  it('exits 2 when a body it must test is not JSON', async () => {
    const s = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<h1>hi</h1>');
    });
    const run = await runCli([s.url, '-u', 'status=done']);
    expectCode(run, 2);
    expect(run.stderr).toContain('Could not parse the HTTP 200 body');
  });

  it('exits 124 when --timeout passes', async () => {
    const s = await serve(json({ status: 'running' }));
    const run = await runCli([s.url, '-u', 'status=done', '-i', '50ms', '-t', '1500ms']);
    expectCode(run, 124);
    expect(run.ms).toBeGreaterThanOrEqual(1400);
    expect(run.stderr).toMatch(/^pollite: timed out: --timeout 1\.5 s passed, after \d+\.\ds\n/);
  });

  it('with --timeout and no --retries, keeps retrying failures until the deadline (124, not 2)', async () => {
    const s = await serve(status(500));
    const lag = lagProbe();
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms', '-t', '1500ms']);
    const late = lag.stop();
    expectCode(run, 124);
    expect(run.ms).toBeGreaterThanOrEqual(1400);
    // Backoff that would pass the deadline is shortened: a last try goes out shortly before it
    // (1.5 s - 150 ms), rather than giving up at once when the first long backoff is drawn.
    const span = s.requests.at(-1)!.at - s.requests[0]!.at;
    // The old behaviour gave up at the first backoff drawn past the deadline (often at once); 900 ms
    // leaves room for a slow first request on a loaded machine.
    expect(span).toBeGreaterThanOrEqual(900);
    // None after the deadline. The server's times are when this process read each request: a busy machine's stall of
    // it may read the last one late (1521 ms at a load average of 17), by at most how late its timers ran meanwhile.
    expect(span).toBeLessThanOrEqual(1500 + late);
    expect(s.requests.length).toBeLessThanOrEqual(12);
  });
});

describe.concurrent('pollite <url>: output', { timeout: 120_000 }, () => {
  it('--json prints only the final body on stdout; progress and summary go to stderr', async () => {
    const body = { status: 'done', result: { url: 'https://x.test/a', sizes: [1, 2] } };
    const s = await serve(json({ status: 'running' }), json(body));
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms', '--json']);
    expectCode(run, 0);
    expect(JSON.parse(run.stdout)).toEqual(body);
    expect(run.stderr).toContain('200 running');
    expect(run.stderr).toMatch(/pollite: 2 requests, 0 × 304, 0 retries, \d+ B received in \d+\.\ds/);
  });

  it('--json prints the body that matched --fail-when too', async () => {
    const s = await serve(json({ status: 'failed', reason: 'disk full' }));
    const run = await runCli([s.url, '-u', 'status=done', '-f', 'status=failed', '--json']);
    expectCode(run, 1);
    expect(JSON.parse(run.stdout)).toEqual({ status: 'failed', reason: 'disk full' });
  });

  it('off a terminal: one plain line per change of state, no control characters, a summary on stderr', async () => {
    const s = await startServer((req, res, _seen, index) => {
      if (index === 1) sendJson(res, 503, { error: 'busy' }, { 'retry-after': '1' });
      else if (index >= 4) sendJson(res, 200, { status: 'done', progress: 100 }, { etag: '"b"' });
      else if (req.headers['if-none-match'] === '"a"') res.writeHead(304, { etag: '"a"' }).end();
      else sendJson(res, 200, { status: 'running', progress: 45 }, { etag: '"a"' });
    });
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms']);
    expectCode(run, 0);
    expect(run.stdout + run.stderr).not.toMatch(CONTROL_CHARACTERS);
    const states = lines(run.stdout).map((line) => line.replace(/^\[\s*\d+\.\ds\] /, ''));
    expect(states).toEqual([
      '200 running 45%',
      // A Retry-After of a second paces the retry: between 1 and 1.2 times it.
      expect.stringMatching(/^503 - retry in 1\.[0-2] s \(Retry-After\)$/),
      '304 unchanged',
      '200 done 100%',
      expect.stringMatching(/^done: /),
    ]);
    expect(s.requests.map((r) => r.headers['if-none-match'] ?? null)).toEqual([null, '"a"', '"a"', '"a"', '"a"']);
    expect(run.stderr).toMatch(/^pollite: 5 requests, 2 × 304, 1 retry, \d+ B received in \d+\.\ds\n$/);
  });

  it('--no-etag never sends If-None-Match', async () => {
    const s = await serve(json({ status: 'running' }, { etag: '"a"' }), json({ status: 'running' }, { etag: '"a"' }), json({ status: 'done' }));
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms', '--no-etag']);
    expectCode(run, 0);
    expect(s.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, undefined, undefined]);
  });

  it('sends -H headers but never prints their values, even with --verbose', async () => {
    const s = await serve(json({ status: 'done' }));
    const run = await runCli([s.url, '-H', 'Authorization: Bearer s3cr3t-token', '-H', 'x-trace:abc123', '-v', '-u', 'status=done']);
    expectCode(run, 0);
    expect(s.requests[0]!.headers.authorization).toBe('Bearer s3cr3t-token');
    expect(s.requests[0]!.headers['x-trace']).toBe('abc123');
    const output = run.stdout + run.stderr;
    expect(output).toContain('> Authorization: ***');
    expect(output).toContain('> X-Trace: ***');
    expect(output).not.toContain('s3cr3t');
    expect(output).not.toContain('abc123');
  });

  it('--quiet prints nothing on success', async () => {
    const s = await serve(json({ status: 'done' }));
    const run = await runCli([s.url, '-q', '-u', 'status=done']);
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });
});

describe.concurrent('pollite <url>: usage errors', { timeout: 120_000 }, () => {
  it.each([
    [['--interval', '5'], "--interval '5' has no unit: use a number with a unit: 500ms, 2s, 1m, 1h"],
    [['--timeout', 'soon'], "--timeout 'soon' is not a duration"],
    [['--until', 'status'], "Invalid condition 'status': no operator"],
    [['--fail-when', 'progress>=lots'], "'>=' needs a number"],
    [['--retries', '-1'], "--retries '-1' must be a whole number >= 0"],
    [['--retries', '2.5'], "--retries '2.5' must be a whole number >= 0"],
    [['--max-attempts', '3'], '--max-attempts is now --retries (the same number: failures in a row that are tried again)'],
    [['--max-attempts'], '--max-attempts is now --retries (the same number: failures in a row that are tried again)'],
    [['--timeout', '0'], "--timeout '0' must be longer than 0"],
    [['--request-timeout', '0ms'], "--request-timeout '0ms' must be longer than 0"],
    [['--bogus'], "unknown option '--bogus'"],
    [['-H', 'no colon here'], "--header needs 'Name: value'"],
    [['-q', '-v'], "option '-q, --quiet' cannot be used with option '-v, --verbose'"],
  ])('%j exits 64 with a one-line message and a hint, sending nothing', async (args, message) => {
    const s = await serve(json({ status: 'done' }));
    const run = await runCli([s.url, ...args]);
    expectCode(run, 64);
    expect(run.stdout).toBe('');
    const [first, hint, ...rest] = run.stderr.split('\n');
    expect(first).toMatch(/^pollite: /);
    expect(first).toContain(message);
    expect([hint, ...rest]).toEqual(["Run 'pollite --help' for usage.", '']);
    expect(s.requests).toHaveLength(0);
  });

  it('a missing or non-http URL exits 64', async () => {
    expect((await runCli([])).stderr).toBe("pollite: missing required argument 'url'\nRun 'pollite --help' for usage.\n");
    const bare = await runCli(['localhost:3000/health']);
    expect(bare.code).toBe(64);
    expect(bare.stderr).toContain("'localhost:3000/health' is not an http(s) URL: did you mean http://localhost:3000/health ?");
    expect((await runCli(['ftp://example.test/'])).code).toBe(64);
    const credentials = await runCli(['http://me:pa55word@127.0.0.1:9/']);
    expect(credentials.code).toBe(64);
    expect(credentials.stderr).toContain("the URL carries credentials, which fetch refuses: send them with -H 'Authorization: Basic ...'");
    expect(credentials.stderr).not.toContain('pa55word');
  });

  it('--help and --version exit 0', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: pollite <url> [options]');
    expect(help.stdout).toContain('--fail-when <cond>');
    expect(help.stdout).toMatch(/\n {2}--retries <n> +failures in a row that are tried again \(default 8;\n +unlimited with --timeout\)\n/);
    expect(help.stdout).toContain('2 HTTP error that is not retried, or --retries used up');
    expect(help.stdout).not.toContain('max-attempts');
    const version = await runCli(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('routes simulate to dist/cli/simulate.js, the bundle beside the bin', async () => {
    expect(existsSync(SIMULATE_BUNDLE)).toBe(true);
    const run = await runCli(['simulate', '--help']);
    expectCode(run, 0);
    expect(run.stdout).toMatch(/^Usage: pollite simulate \[options\]\n/);
  });

  it('exits 64 with a clear message when simulate is not built', async () => {
    // A dist/ without cli/: a copy of the bin (its own import.meta.url), the rest linked.
    const dist = mkdtempSync(join(tmpdir(), 'pollite-dist-'));
    try {
      for (const entry of readdirSync(dirname(BIN))) {
        if (entry !== 'cli' && entry !== 'cli.js') symlinkSync(join(dirname(BIN), entry), join(dist, entry));
      }
      copyFileSync(BIN, join(dist, 'cli.js'));
      const run = await runCli(['simulate', '--help'], { bin: join(dist, 'cli.js') });
      expectCode(run, 64);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^pollite: 'simulate' is not available in this build \(Cannot find module '[^']*\/cli\/simulate\.js' imported from [^)]*\)\n$/);
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });
});
