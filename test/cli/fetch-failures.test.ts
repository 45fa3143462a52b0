import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBin, runCli } from './helpers/run-cli.js';
import { expectCode, serverPool } from './helpers/servers.js';

beforeAll(() => ensureBin());
const servers = serverPool();

// Found by test/hostile/hostile-server.property.test.ts: a request failure poll does not retry
// was reported as "unexpected error (a bug in pollite, please report it)" with exit 70.
describe.concurrent('a request failure that is not retried exits 2 and names it', { timeout: 60_000 }, () => {
  it('a redirect loop', async () => {
    const s = await servers.http((req, res) => void res.writeHead(302, { location: req.url ?? '/' }).end());
    const run = await runCli([`${s.url}/loop`, '-u', 'status=done']);
    expectCode(run, 2);
    expect(s.requests).toHaveLength(21);
    expect(run.stderr).toMatch(
      /^pollite: the request failed, and another try would fail alike: redirect count exceeded\npollite: 1 request, 0 × 304, 0 retries, 0 B received in \d+\.\ds\n$/,
    );
  });

  it('a status line undici cannot read (two spaces: an assertion inside undici) is retried, then gives up', async () => {
    // A malformed answer may be a proxy's hiccup: poll retries it like a network error (--retries 1: two requests).
    const s = await servers.raw((socket) => socket.end('HTTP/1.1  200 OK\r\nContent-Length: 2\r\n\r\n{}'));
    const run = await runCli([s.url, '-u', 'status=done', '--retries', '1', '-i', '100ms']);
    expectCode(run, 2);
    expect(s.requests).toBe(2);
    expect(run.stderr).toMatch(/^pollite: Polling gave up after 2 failed attempts in a row: ERR_ASSERTION\npollite: 2 requests, 0 × 304, 1 retry, /);
  });
});
