import { afterEach, describe, expect, it } from 'vitest';
import { constant, fetchWithRetry, HttpError, isHttpError } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, REFUSED_URL, scripted, startServer, type TestServer } from '../helpers/server.js';

// Issue 35, item 4: `retry.throwHttpErrors` (ky's name). Off by default: fetchWithRetry resolves
// with every response, like fetch; on, a final error status rejects with an HttpError carrying it.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const reject = async (call: Promise<unknown>): Promise<HttpError> => {
  const error = await call.then(
    (value) => {
      throw new Error(`expected a rejection, got ${String(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
};

describe('throwHttpErrors: false (the default), as fetch', () => {
  it('a 404 resolves at once, and a 503 resolves after its retries', async () => {
    server = await startServer((req, res) => (req.url === '/missing' ? json(404, { error: 'gone' })(res) : json(503, { error: 'busy' })(res)));
    const env = recordingEnv().env;
    const missing = await fetchWithRetry(`${server.url}/missing`, { retry: { env } });
    expect(missing.status).toBe(404);
    const busy = await fetchWithRetry(`${server.url}/busy`, { retry: { retries: 2, backoff: constant(5), env } });
    expect(busy.status).toBe(503);
    expect(await busy.json()).toEqual({ error: 'busy' });
    expect(server.requests.map((r) => r.path)).toEqual(['/missing', '/busy', '/busy', '/busy']);
  });

  it('false given explicitly is the same', async () => {
    server = await startServer(scripted([json(404, {})]));
    expect((await fetchWithRetry(server.url, { retry: { throwHttpErrors: false, env: recordingEnv().env } })).status).toBe(404);
  });
});

describe('throwHttpErrors: true, as ky and got', () => {
  it('a 404 rejects at once with an HttpError carrying the response, body unread', async () => {
    server = await startServer(scripted([json(404, { title: 'Job not found' })]));
    const error = await reject(fetchWithRetry(`${server.url}/jobs/42?sig=secret`, { retry: { throwHttpErrors: true, env: recordingEnv().env } }));
    expect(server.requests).toHaveLength(1);
    expect(error.status).toBe(404);
    expect(error.message).toBe(`HTTP 404 Not Found from ${server.url}/jobs/42?sig=***`);
    expect(error.url).toBe(`${server.url}/jobs/42?sig=secret`);
    expect(error.response.bodyUsed).toBe(false);
    expect(await error.response.json()).toEqual({ title: 'Job not found' });
  });

  it('a 503 rejects once its retries run out, with the last response', async () => {
    server = await startServer(scripted([json(503, { n: 1 }), json(502, { n: 2 }), json(500, { n: 3 })]));
    const error = await reject(fetchWithRetry(server.url, { retry: { throwHttpErrors: true, retries: 2, backoff: constant(5), env: recordingEnv().env } }));
    expect(server.requests).toHaveLength(3);
    expect(error.status).toBe(500);
    expect(await error.response.json()).toEqual({ n: 3 });
  });

  it('a 503 then a 200 resolves with the 200', async () => {
    server = await startServer(scripted([json(503, {}), json(200, { ok: true })]));
    const response = await fetchWithRetry(server.url, { retry: { throwHttpErrors: true, backoff: constant(5), env: recordingEnv().env } });
    expect(await response.json()).toEqual({ ok: true });
  });

  it('a POST without a key answered 503 rejects after its one request, and onGiveUp says why first', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '1' })]));
    const reasons: string[] = [];
    const error = await reject(
      fetchWithRetry(server.url, { method: 'POST', body: '{}', retry: { throwHttpErrors: true, retries: 3, onGiveUp: ({ reason }) => reasons.push(reason), env: recordingEnv().env } }),
    );
    expect(error.status).toBe(503);
    expect(server.requests).toHaveLength(1);
    expect(reasons).toEqual(['not-idempotent']);
  });

  it('a 304 is not an error: it resolves', async () => {
    server = await startServer((_req, res) => void res.writeHead(304, { etag: '"a"' }).end());
    const response = await fetchWithRetry(server.url, { headers: { 'if-none-match': '"a"' }, retry: { throwHttpErrors: true, env: recordingEnv().env } });
    expect(response.status).toBe(304);
    expect(server.requests).toHaveLength(1);
  });

  it("a 3xx fetch was told not to follow (redirect: 'manual') resolves; one it could not follow rejects", async () => {
    server = await startServer((req, res) =>
      req.url === '/moved' ? void res.writeHead(302, { location: '/elsewhere' }).end() : void res.writeHead(300, { 'content-type': 'text/plain' }).end('pick one'),
    );
    const env = recordingEnv().env;
    const manual = await fetchWithRetry(`${server.url}/moved`, { redirect: 'manual', retry: { throwHttpErrors: true, env } });
    expect(manual.status).toBe(302);
    const choices = await reject(fetchWithRetry(`${server.url}/choices`, { retry: { throwHttpErrors: true, env } }));
    expect(choices.status).toBe(300);
  });

  it('a network failure still rejects as itself, not as an HttpError', async () => {
    const error = await fetchWithRetry(REFUSED_URL, { retry: { throwHttpErrors: true, retries: 0, env: recordingEnv().env } }).catch((e: unknown) => e);
    expect(isHttpError(error)).toBe(false);
    expect(error).toBeInstanceOf(TypeError);
  });

  it('is checked like every option', async () => {
    await expect(fetchWithRetry('http://127.0.0.1:2/', { retry: { throwHttpErrors: 'yes' as never } })).rejects.toThrow(
      new TypeError("Expected `retry.throwHttpErrors` to be a boolean"),
    );
  });
});
