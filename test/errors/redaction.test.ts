import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry, HttpError, ParseError, poll, PollGaveUpError, type PollEvent } from '../../src/index.js';
import { OperationFailedError, pollOperation } from '../../src/operation/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

// Secrets never appear in what a library user may log: an error's message,
// String(error), its stack, console.log(error) (util.inspect, causes
// included), JSON.stringify(error), or a poll event. A URL is named there
// redacted (userinfo, query values, fragment); the error keeps it whole in
// `url` (and `response`), readable but not enumerable.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const QUERY = '?api_key=SECRET&sig=SECRET2';

/** Every way a user may log `error`: none may hold a secret. */
function expectNoSecret(error: unknown): void {
  for (const text of [(error as Error).message, String(error), (error as Error).stack ?? '', inspect(error, { depth: 8 }), JSON.stringify(error)]) {
    expect(text).not.toMatch(/SECRET|pass\b|hunter2/);
  }
}

const fail = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );

describe('error messages name URLs redacted, over a real server', () => {
  it('HttpError (a 404): the message redacted, `url` and `response` whole but not enumerable', async () => {
    server = await startServer(scripted([json(404, {})]));
    const url = `${server.url}/jobs/42${QUERY}`;
    const error = (await fail(poll(url, { env: recordingEnv().env }))) as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.message).toBe(`HTTP 404 Not Found from ${server.url}/jobs/42?api_key=***&sig=***`);
    expectNoSecret(error);
    expect(error.url).toBe(url);
    expect(error.response.url).toBe(url);
    expect(Object.keys(error)).toEqual(['name', 'status']);
    expect(server.requests[0]!.path).toBe(`/jobs/42${QUERY}`);
  });

  it('ParseError (a 2xx that is no JSON)', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{not json');
    });
    const url = `${server.url}/jobs${QUERY}#token=SECRET3`;
    const error = (await fail(poll(url, { env: recordingEnv().env }))) as ParseError;
    expect(error).toBeInstanceOf(ParseError);
    expect(error.message).toBe(`Could not parse the HTTP 200 body from ${server.url}/jobs?api_key=***&sig=***#*** (application/json)`);
    expectNoSecret(error);
    expect(error.url).toBe(url);
  });

  it('PollGaveUpError, and the HttpError it was caused by', async () => {
    server = await startServer(scripted([json(500, {})]));
    const error = (await fail(poll(`${server.url}/jobs${QUERY}`, { retries: 1, env: recordingEnv().env }))) as PollGaveUpError;
    expect(error).toBeInstanceOf(PollGaveUpError);
    expect(error.cause).toBeInstanceOf(HttpError);
    expect(inspect(error)).toContain('api_key=***&sig=***');
    expectNoSecret(error);
  });

  it('a TimeoutError whose cause is the last failure', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '30' })]));
    // Real time: the deadline (300 ms) passes while waiting out the Retry-After it cannot undercut.
    const error = await fail(poll(`${server.url}/jobs${QUERY}`, { timeout: 300 }));
    expect((error as Error).name).toBe('TimeoutError');
    expect((error as Error).cause).toBeInstanceOf(HttpError);
    expectNoSecret(error);
  });

  it('fetchWithRetry: a TimeoutError caused by the HttpError of the last 503', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '30' })]));
    const error = await fail(fetchWithRetry(`${server.url}/jobs${QUERY}`, { retry: { timeout: 300 } }));
    expect((error as Error).name).toBe('TimeoutError');
    expect((error as Error).cause).toBeInstanceOf(HttpError);
    expect(inspect(error)).toContain('api_key=***&sig=***');
    expectNoSecret(error);
  });

  it('OperationFailedError: a signed Operation-Location', async () => {
    server = await startServer((req, res) => {
      if (req.method === 'POST') return sendJson(res, 202, {}, { 'operation-location': `${server!.url}/operations/1?sv=2024&sig=SECRET` });
      sendJson(res, 200, { status: 'Failed', error: { message: 'boom' } });
    });
    const error = (await fail(pollOperation(`${server.url}/jobs${QUERY}`, { method: 'POST', operation: { env: recordingEnv().env } }))) as OperationFailedError;
    expect(error).toBeInstanceOf(OperationFailedError);
    expect(error.message).toContain(`${server.url}/operations/1?sv=***&sig=***`);
    expectNoSecret(error);
    expect(error.url).toBe(`${server.url}/operations/1?sv=2024&sig=SECRET`);
  });

  it('errors made directly: userinfo and query values never in the message', () => {
    const url = 'https://user:pass@api.example.com/v1?api_key=SECRET&sig=SECRET2#SECRET3';
    const http = new HttpError(new Response(null, { status: 403, statusText: 'Forbidden' }), url);
    expect(http.message).toBe('HTTP 403 Forbidden from https://***@api.example.com/v1?api_key=***&sig=***#***');
    expectNoSecret(http);
    const parse = new ParseError(new Response('x', { status: 200 }), url, new SyntaxError('bad'));
    expectNoSecret(parse);
    expect(new OperationFailedError('canceled', {}, url).message).toBe('The operation at https://***@api.example.com/v1?api_key=***&sig=***#*** was canceled');
  });

  it('a URL with credentials is refused before anything is sent, the password unprinted (fetch\'s own TypeError prints it)', async () => {
    server = await startServer(scripted([json(200, {})]));
    const withPassword = server.url.replace('http://', 'http://user:hunter2@');
    for (const run of [() => poll(withPassword, { env: recordingEnv().env }), () => fetchWithRetry(withPassword), () => pollOperation(withPassword)]) {
      const error = (await fail(run())) as TypeError;
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toBe(
        `Expected \`input\` to be a URL without credentials, which fetch refuses (send an Authorization header instead), got ${server.url.replace('http://', 'http://***@')}/`,
      );
      expectNoSecret(error);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('poll events carry no URL secret', () => {
  it('every event of a poll through a cooldown, a retry and a wait', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '1' }), json(200, { status: 'pending' }), json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    await poll<{ status: string }>(`${server.url}/jobs${QUERY}#SECRET3`, {
      isDone: (job) => job.status === 'done',
      onEvent: (event) => events.push(event),
      env: recordingEnv().env,
    });
    expect(events.map((e) => e.type)).toContain('retry');
    expect(JSON.stringify(events)).not.toContain('SECRET');
  });
});
