import { afterEach, describe, expect, it, vi } from 'vitest';
import { conditional } from '../../src/http/conditional.js';
import { requestFactory } from '../../src/http/request.js';
import { fetchWithRetry, poll } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  delete (globalThis as { location?: unknown }).location;
  await server?.close();
  server = undefined;
});

interface Job {
  status: string;
}
const isDone = (job: Job): boolean => job.status === 'done';
/** Node's fetch, recording the init of every request. */
const recordingFetch = () => {
  const inits: RequestInit[] = [];
  const recording = (input: RequestInfo | URL, init?: RequestInit) => (inits.push(init ?? {}), fetch(input, init));
  return { inits, fetch: recording };
};
const etagged = (status: string) => (res: Parameters<typeof sendJson>[0]) => sendJson(res, 200, { status }, { etag: `"${status}"` });

describe('the conditional request outside a page', () => {
  it('says Cache-Control: max-age=0 on a conditional request only, and keeps a Cache-Control of the caller', async () => {
    server = await startServer(scripted([etagged('a'), etagged('done')]));
    await poll<Job>(`${server.url}/j`, { isDone, env: recordingEnv().env });
    expect(server.requests.map((r) => [r.headers['if-none-match'], r.headers['cache-control']])).toEqual([
      [undefined, undefined],
      ['"a"', 'max-age=0'],
    ]);
    await server.close();
    server = await startServer(scripted([etagged('a'), etagged('done')]));
    await poll<Job>(`${server.url}/j`, { isDone, init: { headers: { 'Cache-Control': 'no-store' } }, env: recordingEnv().env });
    expect(server.requests.map((r) => [r.headers['if-none-match'], r.headers['cache-control']])).toEqual([
      [undefined, 'no-store'],
      ['"a"', 'no-store'],
    ]);
  });

  it("asks Node's fetch for cache: 'no-cache', which says max-age=0 without Pragma, instead of a header of its own", async () => {
    server = await startServer(scripted([etagged('a'), etagged('b'), etagged('done')]));
    const { inits, fetch: recording } = recordingFetch();
    await poll<Job>(`${server.url}/j`, { isDone, fetch: recording, env: recordingEnv().env });
    expect(inits.map((init) => [init.cache, (init.headers as Record<string, string>)['cache-control']])).toEqual([
      [undefined, undefined],
      ['no-cache', undefined],
      ['no-cache', undefined],
    ]);
    expect(server.requests.map((r) => [r.headers['if-none-match'], r.headers['cache-control'], r.headers.pragma])).toEqual([
      [undefined, undefined, undefined],
      ['"a"', 'max-age=0', undefined],
      ['"b"', 'max-age=0', undefined],
    ]);
  });

  it("replaces a cache mode of the caller's (in init or on a Request) on a conditional request only", async () => {
    const since = { etag: '"a"', lastModified: null };
    for (const [input, init] of [
      ['http://127.0.0.1:9/j', { cache: 'no-store' }],
      [new Request('http://127.0.0.1:9/j', { cache: 'reload' }), {}],
    ] as const) {
      const factory = requestFactory(input, init, conditional);
      const mode = typeof input === 'string' ? init.cache : input.cache;
      // The mode each request is made with, as fetch reads it.
      expect(new Request(...factory.args(null, undefined)).cache).toBe(mode);
      const sent = factory.args(since, undefined);
      expect([new Request(...sent).cache, (sent[1].headers as Record<string, string>)['cache-control']]).toEqual(['no-cache', undefined]);
    }
    server = await startServer(scripted([etagged('a'), etagged('done')]));
    await poll<Job>(`${server.url}/j`, { isDone, init: { cache: 'no-store' }, env: recordingEnv().env });
    // no-store is the caller's on the first request (Node's fetch says no-cache and Pragma), no-cache on the second.
    expect(server.requests.map((r) => [r.headers['if-none-match'], r.headers['cache-control'], r.headers.pragma])).toEqual([
      [undefined, 'no-cache', 'no-cache'],
      ['"a"', 'max-age=0', undefined],
    ]);
  });

  it("says max-age=0 as a header of its own where fetch is not Node's (Deno, Bun, workerd, an edge runtime's shim), and keeps a caller's", () => {
    vi.stubGlobal('process', { versions: { node: '20' } });
    try {
      const since = { etag: '"a"', lastModified: null };
      const header = (sent: RequestInit, name: string): string | undefined => (sent.headers as Record<string, string>)[name];
      const [, first] = requestFactory('http://127.0.0.1:9/j', {}, conditional).args(null, undefined);
      const [, sent] = requestFactory('http://127.0.0.1:9/j', {}, conditional).args(since, undefined);
      const [, mine] = requestFactory('http://127.0.0.1:9/j', { headers: { 'Cache-Control': 'no-store' } }, conditional).args(since, undefined);
      expect([first.cache, header(first, 'cache-control')]).toEqual([undefined, undefined]);
      expect([sent.cache, header(sent, 'cache-control'), header(sent, 'if-none-match')]).toEqual([undefined, 'max-age=0', '"a"']);
      expect([mine.cache, header(mine, 'cache-control')]).toEqual([undefined, 'no-store']);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('with If-Modified-Since too', async () => {
    const lastModified = 'Wed, 21 Oct 2015 07:28:00 GMT';
    server = await startServer(scripted([(res) => sendJson(res, 200, { status: 'a' }, { 'last-modified': lastModified }), (res) => sendJson(res, 200, { status: 'done' })]));
    await poll<Job>(server.url, { isDone, env: recordingEnv().env });
    expect(server.requests.map((r) => [r.headers['if-modified-since'], r.headers['cache-control']])).toEqual([
      [undefined, undefined],
      [lastModified, 'max-age=0'],
    ]);
  });
});

describe('in a realm with a location (a page, a worker, an Electron renderer, jsdom)', () => {
  it('says nothing (a page keeps its HTTP cache, and CORS would have to allow a header), and names a relative input against location.href', async () => {
    server = await startServer(scripted([etagged('a'), etagged('done')]));
    (globalThis as { location?: unknown }).location = { href: `${server.url}/app/page.html` };
    const { inits, fetch: recording } = recordingFetch();
    await poll<Job>(`${server.url}/jobs/1`, { isDone, fetch: recording, env: recordingEnv().env });
    expect(inits.map((init) => [init.cache, (init.headers as Record<string, string>)['cache-control']])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
    // What Node's fetch itself says on a conditional request, untouched.
    expect(server.requests.map((r) => [r.headers['if-none-match'], r.headers['cache-control'] ?? null])).toEqual([
      [undefined, null],
      ['"a"', 'no-cache'],
    ]);
    expect(requestFactory('jobs/1', {}).url).toBe(`${server.url}/app/jobs/1`);
  });
});

describe('the request each attempt sends', () => {
  it("a lower-case method is the method: `method: 'get'` and `'put'` are retried as GET and PUT", async () => {
    for (const method of ['get', 'put']) {
      server = await startServer(scripted([(res) => sendJson(res, 503, {}), (res) => sendJson(res, 200, {})]));
      const response = await fetchWithRetry(server.url, { method, retry: { env: recordingEnv().env } });
      expect(response.status).toBe(200);
      expect(server.requests.map((r) => r.method)).toEqual([method.toUpperCase(), method.toUpperCase()]);
      expect(requestFactory(server.url, { method }).method).toBe(method.toUpperCase());
      await server.close();
      server = undefined;
    }
  });

  it('a Request with a body is sent whole on every poll: each attempt sends a clone', async () => {
    server = await startServer(scripted([(res) => sendJson(res, 200, { status: 'a' }), (res) => sendJson(res, 200, { status: 'b' }), (res) => sendJson(res, 200, { status: 'done' })]));
    const input = new Request(`${server.url}/search`, { method: 'POST', body: '{"q":1}', headers: { 'content-type': 'application/json' } });
    await poll<Job>(input, { isDone, conditional: false, env: recordingEnv().env });
    expect(server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/search', '{"q":1}'],
      ['POST', '/search', '{"q":1}'],
      ['POST', '/search', '{"q":1}'],
    ]);
    expect(input.bodyUsed).toBe(false);
  });

  it("init's method, headers and body win over the Request's", async () => {
    const factory = requestFactory(new Request('http://127.0.0.1:9/x', { method: 'POST', body: 'r', headers: { a: 'request', b: 'request' } }), {
      method: 'put',
      body: 'i',
      headers: { b: 'init' },
    });
    expect([factory.method, factory.headers, factory.body]).toEqual(['PUT', { a: 'request', b: 'init', 'content-type': 'text/plain;charset=UTF-8' }, 'i']);
    expect(requestFactory('http://127.0.0.1:9/x', {}).method).toBe('GET');
    expect(requestFactory('http://127.0.0.1:9/x', {}).body).toBeNull();
  });
});
