import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry, poll } from '../../src/index.js';
import { MAX_HINT_MS } from '../../src/kit/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';

// The retry hint of a 429's or 503's JSON body is read for at most MAX_HINT_MS: a struggling server that sends its
// error's headers and then trickles (or never ends) the body must not hold the retry, even without any timeout.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A 503 whose JSON body starts and never ends, then a 200. */
async function stallingThenOk(): Promise<TestServer> {
  let seen = 0;
  return startServer((_req, res) => {
    seen += 1;
    if (seen > 1) return sendJson(res, 200, { status: 'done' });
    res.writeHead(503, { 'content-type': 'application/json' });
    res.write('{"error":{"message":"busy"');
  });
}

describe('a stalled error body does not hold the retry', () => {
  it('poll retries after the hint read gives up (MAX_HINT_MS), with no timeout of its own', async () => {
    server = await stallingThenOk();
    const started = performance.now();
    const job = await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', backoff: () => 0 });
    expect(job).toEqual({ status: 'done' });
    expect(server.requests).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(MAX_HINT_MS - 50);
  });

  it('fetchWithRetry the same', async () => {
    server = await stallingThenOk();
    const response = await fetchWithRetry(server.url, { retry: { backoff: () => 0 } });
    expect(response.status).toBe(200);
    expect(server.requests).toHaveLength(2);
  });
});
