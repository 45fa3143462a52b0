import type { ServerResponse } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBin, runCli } from './helpers/run-cli.js';
import { expectCode, serverPool } from './helpers/servers.js';

beforeAll(() => ensureBin());
const servers = serverPool();

/** Past this the bin is killed: an unbounded read reaches it within a second on loopback. */
const RSS_LIMIT = 200 * 2 ** 20;
/** A small old space as well, so a body kept on the JS heap fails at once. */
const SMALL_HEAP = ['--max-old-space-size=64'];

/** Writes `chunk` for ever, as fast as the client reads; stops when the connection closes. Counts the closes. */
function endless(res: ServerResponse, chunk: Buffer, closed: { count: number }): void {
  let open = true;
  res.on('close', () => {
    open = false;
    closed.count += 1;
  });
  const pump = (): void => {
    while (open && res.write(chunk));
    if (open) res.once('drain', pump);
  };
  pump();
}

const CHUNK = Buffer.alloc(64 * 1024, 'x');

describe.concurrent('bodies the bin reads, bounded', { timeout: 60_000 }, () => {
  it('an endless 503 body: at most 4 KiB of each is read, memory stays bounded, and -t ends it with 124', async () => {
    const closed = { count: 0 };
    const s = await servers.http((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      endless(res, CHUNK, closed);
    });
    const run = await runCli([s.url, '-t', '3s', '-i', '10ms'], { nodeArgs: SMALL_HEAP, killAboveRss: RSS_LIMIT, timeoutMs: 30_000 });
    expectCode(run, 124);
    // Measured: about 60 MiB (a bare bin); before the fix the clone read every byte and passed 1 GiB in 3 s.
    expect(run.peakRss).toBeGreaterThan(0);
    expect(run.peakRss).toBeLessThan(RSS_LIMIT);
    expect(run.stdout.split('\n')[0]).toMatch(/^\[\s*\d+\.\ds\] 503 - retry in \d+\.\d s \(backoff\)$/);
    // The client hung up on every one of them.
    expect(closed.count).toBe(s.requests.length);
    // Counted as read: the first chunk of each, then the rest cancelled.
    const [, amount, unit] = /, (\d+(?:\.\d+)?) (B|kB|MB) received in/.exec(run.stderr) ?? [];
    const bytes = Number(amount) * { B: 1, kB: 1e3, MB: 1e6 }[unit as 'B'];
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(s.requests.length * 2 * CHUNK.length);
  });

  it('an endless 200 body: stops past 16 MiB with exit 2 and says why, memory bounded', async () => {
    const closed = { count: 0 };
    const s = await servers.http((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":"running","padding":"');
      endless(res, CHUNK, closed);
    });
    const run = await runCli([`${s.url}/job`, '-u', 'status=done', '-t', '20s'], { nodeArgs: SMALL_HEAP, killAboveRss: RSS_LIMIT, timeoutMs: 30_000 });
    expectCode(run, 2);
    expect(run.peakRss).toBeLessThan(RSS_LIMIT);
    expect(run.stderr).toMatch(
      new RegExp(`^pollite: the HTTP 200 body from ${s.url}/job is larger than 16 MiB, the most pollite reads\\npollite: 1 request, 0 × 304, 0 retries, 16\\.\\d MB received in \\d+\\.\\ds\\n$`),
    );
    expect(s.requests).toHaveLength(1);
    expect(closed.count).toBe(1);
  });

  it('a 2xx body of exactly 16 MiB is still read', async () => {
    const body = Buffer.alloc(16 * 2 ** 20, ' ');
    body.write('{"status":"done"}');
    const s = await servers.http((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
    const run = await runCli([s.url, '-u', 'status=done'], { killAboveRss: RSS_LIMIT });
    expectCode(run, 0);
    expect(run.stderr).toMatch(/^pollite: 1 request, 0 × 304, 0 retries, 16\.8 MB received in \d+\.\ds\n$/);
  });
});

describe.concurrent('--json prints the body exactly as received', { timeout: 60_000 }, () => {
  // A JSON string holding bytes that are not UTF-8 (0xff, 0xfe, a lone continuation byte): the parser reads
  // them as U+FFFD, but the file must get the server's bytes, not EF BF BD three times.
  const invalid = Buffer.concat([Buffer.from('{"status": "done",\n  "name": "caf'), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from('"}')]);

  it('invalid UTF-8 inside a JSON string: stdout is byte for byte what the server sent', async () => {
    const s = await servers.http((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': invalid.length });
      res.end(invalid);
    });
    const run = await runCli([s.url, '-u', 'status=done', '--json']);
    expectCode(run, 0);
    expect(run.stdoutBytes.equals(invalid)).toBe(true);
    expect(run.stderr).toMatch(new RegExp(`pollite: 1 request, 0 × 304, 0 retries, ${invalid.length} B received in \\d+\\.\\ds\\n$`));
  });

  it('neither re-indented nor given a newline; a text body without conditions likewise', async () => {
    const compact = Buffer.from('{"status":"done","n":[1,2]}');
    const text = Buffer.from('OK \xe9\n', 'latin1');
    const s = await servers.http((req, res) => {
      const body = req.url === '/text' ? text : compact;
      res.writeHead(200, { 'content-type': req.url === '/text' ? 'text/plain' : 'application/json', 'content-length': body.length });
      res.end(body);
    });
    const json = await runCli([s.url, '-u', 'status=done', '--json']);
    expectCode(json, 0);
    expect(json.stdoutBytes.equals(compact)).toBe(true);
    const plain = await runCli([`${s.url}/text`, '--json']);
    expectCode(plain, 0);
    expect(plain.stdoutBytes.equals(text)).toBe(true);
  });
});

describe.concurrent('what a status that is not retried said', { timeout: 60_000 }, () => {
  const answer = (status: number, type: string, body: string) => (_req: unknown, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  it('a problem+json 404: its title and detail on the line after the error; its bytes counted', async () => {
    const problem = JSON.stringify({ type: 'about:blank', title: 'Job not found', detail: 'there is no job 42', status: 404 });
    const s = await servers.http(answer(404, 'application/problem+json', problem));
    const run = await runCli([`${s.url}/jobs/42`, '-u', 'status=done']);
    expectCode(run, 2);
    expect(run.stdout).toBe('');
    const [error, says, summary, end] = run.stderr.split('\n');
    expect([error, says, end]).toEqual([`pollite: HTTP 404 Not Found from ${s.url}/jobs/42`, 'pollite: the server says: Job not found: there is no job 42', '']);
    expect(summary).toMatch(new RegExp(`^pollite: 1 request, 0 × 304, 0 retries, ${Buffer.byteLength(problem)} B received in \\d+\\.\\ds$`));
  });

  it('a text 404 of 24 bytes: its first line, and 24 B received (not 0 B)', async () => {
    const body = 'no such job\nsee the API';
    expect(Buffer.byteLength(body)).toBe(23);
    const s = await servers.http(answer(404, 'text/plain; charset=utf-8', `${body}\n`));
    const run = await runCli([s.url]);
    expectCode(run, 2);
    expect(run.stderr).toMatch(
      new RegExp(`^pollite: HTTP 404 Not Found from ${s.url}/\\npollite: the server says: no such job\\npollite: 1 request, 0 × 304, 0 retries, 24 B received in \\d+\\.\\ds\\n$`),
    );
  });

  it('a 403 whose body says nothing readable adds no line', async () => {
    const s = await servers.http(answer(403, 'application/octet-stream', '\x00\x01\x02'));
    const run = await runCli([s.url]);
    expectCode(run, 2);
    expect(run.stderr).toMatch(new RegExp(`^pollite: HTTP 403 Forbidden from ${s.url}/\\npollite: 1 request, 0 × 304, 0 retries, 3 B received in \\d+\\.\\ds\\n$`));
  });

  it('the bodies of retried statuses are counted too: two 503s of 13 bytes are 26 B', async () => {
    const s = await servers.http(answer(503, 'application/json', '{"error":503}'));
    const run = await runCli([s.url, '--retries', '1', '-i', '10ms']);
    expectCode(run, 2);
    expect(run.stderr).toMatch(/^pollite: Polling gave up after 2 failed attempts in a row \(last: HTTP 503\)\npollite: 2 requests, 0 × 304, 1 retry, 26 B received in \d+\.\ds\n$/);
  });
});
