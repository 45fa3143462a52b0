import { afterEach, describe, expect, it } from 'vitest';
import { share } from '../../src/cooperate/index.js';
import { shareKey } from '../../src/kit/index.js';
import { requestFactory } from '../../src/http/request.js';
import { poll } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';

// Two polls share a loop only if they would send the same request. fetch
// (Node's undici and browsers alike) adds a Content-Type of its own for a
// string body, `''` too, and another for URLSearchParams; for no body it
// adds none. So the kind of the body is part of the request, not only its
// text.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Seen {
  type: string | null;
  length: string | null;
  body: string;
}
/** Answers with the Content-Type, Content-Length and body it received. */
const echoing = (): Promise<TestServer> =>
  startServer((req, res, seen) => sendJson(res, 200, { type: req.headers['content-type'] ?? null, length: req.headers['content-length'] ?? null, body: seen.body }));
const sharedPoll = (url: string, init: RequestInit): Promise<Seen> => poll<Seen>(url, { use: [share()], isDone: () => true, init });

describe('what makes two polls one request', () => {
  it('a POST without a body, one of "" and one of an empty form are three requests (fetch types the last two): each caller gets the answer to its own', async () => {
    server = await echoing();
    const url = `${server.url}/search`;
    const answers = await Promise.all([
      sharedPoll(url, { method: 'POST' }),
      sharedPoll(url, { method: 'POST', body: '' }),
      sharedPoll(url, { method: 'POST', body: new URLSearchParams() }),
      sharedPoll(url, { method: 'POST' }),
      sharedPoll(url, { method: 'POST', body: '' }),
    ]);
    const none = { type: null, length: '0', body: '' };
    const empty = { type: 'text/plain;charset=UTF-8', length: '0', body: '' };
    const form = { type: 'application/x-www-form-urlencoded;charset=UTF-8', length: '0', body: '' };
    expect(answers).toEqual([none, empty, form, none, empty]);
    // The same kind and text share: three requests for five polls.
    expect(server.requests.map((r) => r.headers['content-type'] ?? '(none)').sort()).toEqual(['(none)', form.type, empty.type]);
  });

  it("a string body and URLSearchParams of the same text are two requests (fetch types them apart)", async () => {
    server = await echoing();
    const url = `${server.url}/search`;
    const answers = await Promise.all([
      sharedPoll(url, { method: 'POST', body: 'q=owls' }),
      sharedPoll(url, { method: 'POST', body: new URLSearchParams({ q: 'owls' }) }),
      sharedPoll(url, { method: 'POST', body: new URLSearchParams('q=owls') }),
    ]);
    expect(answers).toEqual([
      { type: 'text/plain;charset=UTF-8', length: '6', body: 'q=owls' },
      { type: 'application/x-www-form-urlencoded;charset=UTF-8', length: '6', body: 'q=owls' },
      { type: 'application/x-www-form-urlencoded;charset=UTF-8', length: '6', body: 'q=owls' },
    ]);
    expect(server.requests).toHaveLength(2);
  });

  it('the exact key, which also names the Web Lock and BroadcastChannel that every copy of pollite in the tabs of an origin must agree on', () => {
    const key = (init: RequestInit): string | undefined => shareKey(requestFactory('http://127.0.0.1:9/jobs?id=1', init));
    expect(key({})).toBe('GET http://127.0.0.1:9/jobs?id=1\n\n');
    expect(key({ method: 'post' })).toBe('POST http://127.0.0.1:9/jobs?id=1\n\n');
    expect(key({ method: 'POST', body: '' })).toBe('POST http://127.0.0.1:9/jobs?id=1\n\ns');
    expect(key({ method: 'POST', body: 'q=owls', headers: { 'X-B': '2', 'x-a': '1' } })).toBe('POST http://127.0.0.1:9/jobs?id=1\nx-a: 1\nx-b: 2\n\nsq=owls');
    expect(key({ method: 'POST', body: new URLSearchParams({ q: 'owls' }) })).toBe('POST http://127.0.0.1:9/jobs?id=1\n\nuq=owls');
    expect(key({ method: 'POST', body: new Blob(['q=owls']) })).toBeUndefined();
  });
});

describe('headers that name a request or a program, never a user, do not split a share (issue 35)', () => {
  it('two callers with their own trace ids, request ids and User-Agent share one loop, which sends its leader\'s', async () => {
    server = await startServer((req, res) => sendJson(res, 200, { trace: req.headers.traceparent ?? null }));
    const traced = (n: number): RequestInit => ({
      headers: { traceparent: `00-${String(n).repeat(32).slice(0, 32)}-${String(n).repeat(16).slice(0, 16)}-01`, 'x-request-id': `req-${n}`, 'user-agent': `worker-${n}` },
    });
    const [a, b] = await Promise.all([sharedPoll(`${server.url}/job`, traced(1)), sharedPoll(`${server.url}/job`, traced(2))]);
    expect(server.requests).toHaveLength(1);
    expect(a).toEqual(b);
    expect(server.requests[0]!.headers['x-request-id']).toBe('req-1');
  });

  it('every other header still splits: Authorization, Cookie, a header of your own', async () => {
    const key = (headers: Record<string, string>): string | undefined => shareKey(requestFactory('http://127.0.0.1:9/jobs', { headers }));
    expect(key({ traceparent: 'a', 'sentry-trace': 'x', baggage: 'k=v', 'x-amzn-trace-id': 'r', 'user-agent': 'A' })).toBe(key({ traceparent: 'b', 'user-agent': 'B' }));
    expect(key({ authorization: 'Bearer a' })).not.toBe(key({ authorization: 'Bearer b' }));
    expect(key({ cookie: 'id=a' })).not.toBe(key({ cookie: 'id=b' }));
    expect(key({ 'x-proc': '1' })).not.toBe(key({ 'x-proc': '2' }));
    expect(key({ 'x-tenant': 'a', traceparent: 'a' })).not.toBe(key({ 'x-tenant': 'b', traceparent: 'a' }));
  });
});
