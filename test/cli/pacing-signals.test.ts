import { beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from '../helpers/server.js';
import { ensureBin, runCli } from './helpers/run-cli.js';
import { expectCode, serverPool } from './helpers/servers.js';

// Issue 36: the command's status line names the server's signal that set a
// wait: a retry's (`retry-after-ms`, `body: retry hint`) and, after a 2xx,
// a wait the server set over the interval (`X-Poll-Interval`).

beforeAll(() => ensureBin());
const servers = serverPool();

/** The progress lines, without their elapsed-time stamps. */
const states = (text: string): string[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('['))
    .map((line) => line.replace(/^\[\s*\d+\.\ds\] /, ''));

describe.concurrent('pollite <url>: which signal set a wait', { timeout: 60_000 }, () => {
  it('X-Poll-Interval on a 200: "200 running - next in 1.x s (X-Poll-Interval)"', async () => {
    let n = 0;
    const s = await servers.http((_req, res) => sendJson(res, 200, { status: n++ === 0 ? 'running' : 'done' }, { 'x-poll-interval': '1' }));
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms']);
    expectCode(run, 0);
    expect(states(run.stdout)).toEqual(['200 running', expect.stringMatching(/^200 running - next in 1\.[0-2] s \(X-Poll-Interval\)$/), '200 done']);
    expect(s.requests).toHaveLength(2);
  });

  it('retry-after-ms on a 429, and a RetryInfo in a 503\'s body, each named', async () => {
    let n = 0;
    const s = await servers.http((_req, res) => {
      n += 1;
      if (n === 1) return sendJson(res, 429, { error: 'slow down' }, { 'retry-after-ms': '1000' });
      if (n === 2) return sendJson(res, 503, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }] } });
      return sendJson(res, 200, { status: 'done' });
    });
    const run = await runCli([s.url, '-u', 'status=done', '-i', '10ms']);
    expectCode(run, 0);
    expect(states(run.stdout)).toEqual([
      expect.stringMatching(/^429 - retry in 1\.[0-2] s \(retry-after-ms\)$/),
      expect.stringMatching(/^503 - retry in 1\.[0-2] s \(body: retry hint\)$/),
      '200 done',
    ]);
  });
});
