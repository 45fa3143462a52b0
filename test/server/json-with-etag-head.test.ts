import { afterEach, describe, expect, it } from 'vitest';
import { jsonWithETag } from '../../src/server/index.js';
import { parseAnswers, rawExchange, serveNode, type NodeServer } from './serve-node.js';

// Issue 33: a HEAD answer carries the header fields the GET would, Content-Length included, and no
// body (RFC 9110 §9.3.2). Non-ASCII data, so a length in characters would be wrong.
const JOB = { id: '7', status: 'läuft', note: '日本' };
const TEXT = JSON.stringify(JOB);
const LENGTH = String(Buffer.byteLength(TEXT));

const request = (method: string, headers: Record<string, string> = {}): Request => new Request('http://api.test/jobs/7', { method, headers });

/** Every header of `response` but Date, which differs between two answers a second apart. */
const fields = (headers: Headers | Record<string, string>): Record<string, string> => {
  const { date: _date, ...rest } = Object.fromEntries(headers instanceof Headers ? headers : Object.entries(headers));
  return rest;
};

describe('jsonWithETag answers HEAD with the header fields of GET, Content-Length included', () => {
  it('in process: GET and HEAD carry the same fields, the length in bytes; HEAD has no body', async () => {
    const get = await jsonWithETag(request('GET'), JOB, { headers: { 'x-job': '7' } });
    const head = await jsonWithETag(request('HEAD'), JOB, { headers: { 'x-job': '7' } });
    expect(get.headers.get('content-length')).toBe(LENGTH);
    expect(fields(head.headers)).toEqual(fields(get.headers));
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(Buffer.byteLength(await get.text())).toBe(Number(LENGTH));
  });

  it('in process: an init Content-Length is replaced by the real one, as the ETag is', async () => {
    for (const method of ['GET', 'HEAD', 'POST']) {
      const response = await jsonWithETag(request(method), JOB, { headers: { 'content-length': '1' } });
      expect(response.headers.get('content-length')).toBe(LENGTH);
    }
  });

  it('in process: a 304 still carries no Content-Length', async () => {
    const etag = (await jsonWithETag(request('GET'), JOB)).headers.get('etag')!;
    const notModified = await jsonWithETag(request('HEAD', { 'if-none-match': etag }), JOB);
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('content-length')).toBeNull();
  });

  describe('over node:http (toNodeHandler), as the bytes on the wire', () => {
    let server: NodeServer | undefined;
    afterEach(() => server?.close());

    const exchange = (method: string): Promise<string> =>
      rawExchange(server!.port, [`${method} /jobs/7 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);

    it('HEAD: Content-Length of the GET body, no Transfer-Encoding, and not a byte after the head', async () => {
      server = await serveNode((req) => jsonWithETag(req, JOB));
      const [get] = parseAnswers(await exchange('GET'));
      const headRaw = await exchange('HEAD');
      expect(get!.status).toBe('HTTP/1.1 200 OK');
      expect(get!.headers['content-length']).toBe(LENGTH);
      expect(get!.headers['transfer-encoding']).toBeUndefined();
      expect(Buffer.from(get!.body, 'latin1').toString('utf8')).toBe(TEXT);

      // Not a byte after the head, though it names a length.
      expect(headRaw.length).toBe(headRaw.indexOf('\r\n\r\n') + 4);
      const [head] = parseAnswers(headRaw);
      expect(head!.status).toBe('HTTP/1.1 200 OK');
      expect(head!.body).toBe('');
      expect(fields(head!.headers)).toEqual(fields(get!.headers));
    });

    it('fetch sees the same Content-Length for HEAD as for GET', async () => {
      server = await serveNode((req) => jsonWithETag(req, JOB));
      const get = await fetch(`${server.url}/jobs/7`);
      const head = await fetch(`${server.url}/jobs/7`, { method: 'HEAD' });
      expect(head.headers.get('content-length')).toBe(LENGTH);
      expect(get.headers.get('content-length')).toBe(LENGTH);
      expect(await head.text()).toBe('');
      expect(await get.text()).toBe(TEXT);
    });
  });
});
