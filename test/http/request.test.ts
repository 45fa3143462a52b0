import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestFactory } from '../../src/http/request.js';
import { poll } from '../../src/index.js';
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
    const inits: RequestInit[] = [];
    const recording = (input: RequestInfo | URL, init?: RequestInit) => (inits.push(init ?? {}), fetch(input, init));
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
      const factory = requestFactory(input, init);
      expect(factory.args(null, undefined)[1].cache).toBe(init.cache);
      const [, sent] = factory.args(since, undefined);
      expect([sent.cache, (sent.headers as Record<string, string>)['cache-control']]).toEqual(['no-cache', undefined]);
    }
    server = await startServer(scripted([etagged('a'), etagged('done')]));
    await poll<Job>(`${server.url}/j`, { isDone, init: { cache: 'no-store' }, env: recordingEnv().env });
    // no-store is the caller's on the first request (Node's fetch says no-cache and Pragma), no-cache on the second.
    expect(server.requests.map((r) => [r.headers['if-none-match'], r.headers['cache-control'], r.headers.pragma])).toEqual([
      [undefined, 'no-cache', 'no-cache'],
      ['"a"', 'max-age=0', undefined],
    ]);
  });

  it('says nothing where fetch is not undici (Deno and Bun add no Cache-Control; workerd refuses a cache mode)', () => {
    vi.stubGlobal('process', { versions: { node: '20' } });
    try {
      const [, sent] = requestFactory('http://127.0.0.1:9/j', {}).args({ etag: '"a"', lastModified: null }, undefined);
      expect([sent.cache, (sent.headers as Record<string, string>)['cache-control'], (sent.headers as Record<string, string>)['if-none-match']]).toEqual([
        undefined,
        undefined,
        '"a"',
      ]);
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

describe('in a realm with a location (a page, a worker, jsdom)', () => {
  it('names a relative input by its URL against location.href, and Node\'s fetch still says max-age=0 (it has no CORS)', async () => {
    server = await startServer(scripted([etagged('a'), etagged('done')]));
    (globalThis as { location?: unknown }).location = { href: `${server.url}/app/page.html` };
    await poll<Job>(`${server.url}/jobs/1`, { isDone, env: recordingEnv().env });
    expect(server.requests.map((r) => [r.headers['if-none-match'], r.headers['cache-control'] ?? null])).toEqual([
      [undefined, null],
      ['"a"', 'max-age=0'],
    ]);
    expect(requestFactory('jobs/1', {}).url).toBe(`${server.url}/app/jobs/1`);
  });
});
