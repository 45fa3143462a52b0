import { afterEach, describe, expect, it } from 'vitest';
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

describe('in a realm with a location (a page, a worker)', () => {
  it('adds no Cache-Control, which CORS would have to allow, and names a relative input by its URL against location.href', async () => {
    server = await startServer(scripted([etagged('a'), etagged('done')]));
    (globalThis as { location?: unknown }).location = { href: `${server.url}/app/page.html` };
    await poll<Job>(`${server.url}/jobs/1`, { isDone, env: recordingEnv().env });
    // What Node's fetch itself says on a conditional request, untouched.
    expect(server.requests.map((r) => [r.headers['if-none-match'], r.headers['cache-control'] ?? null])).toEqual([
      [undefined, null],
      ['"a"', 'no-cache'],
    ]);
    expect(requestFactory('jobs/1', {}).url).toBe(`${server.url}/app/jobs/1`);
  });
});
