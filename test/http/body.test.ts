import { afterEach, describe, expect, it } from 'vitest';
import { readText } from '../../src/http/body.js';
import { discardBody } from '../../src/index.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that streams `chunks` without a Content-Length (chunked), each after the last is flushed. */
const streaming = (chunks: string[]) =>
  startServer(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    for (const chunk of chunks) {
      res.write(chunk);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    res.end();
  });

describe('readText: a body of at most `limit` bytes', () => {
  it('counts a body without a Content-Length as it arrives: exactly the limit is read, a byte more is a RangeError', async () => {
    server = await streaming(['ab', 'cd', 'e']);
    const response = await fetch(server.url);
    expect(response.headers.get('content-length')).toBeNull();
    expect(await readText(response, 5)).toBe('abcde');
    const over = await fetch(server.url);
    await expect(readText(over, 4)).rejects.toThrow(new RangeError('The body is larger than 4 bytes'));
  });

  it('decodes a streamed body as Response.text() does: a character split between chunks, a BOM dropped, a bad byte replaced', async () => {
    const bytes = [Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0xe2]), Buffer.from([0x82, 0xac, 0xff, 0x62])];
    server = await startServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (const chunk of bytes) {
        res.write(chunk);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      res.end();
    });
    const streamed = await readText(await fetch(server.url), 100);
    expect(streamed).toBe('a\u20ac\ufffdb');
    expect(streamed).toBe(await (await fetch(server.url)).text());
  });

  it('reads a declared Content-Length of exactly the limit, and refuses a larger one before reading it', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '5' });
      res.end('hello');
    });
    expect(await readText(await fetch(server.url), 5)).toBe('hello');
    await expect(readText(await fetch(server.url), 4)).rejects.toThrow(new RangeError('The body is larger than 4 bytes'));
  });
});

describe('discardBody', () => {
  it('cancels an unread body, and leaves one the caller has begun reading alone', async () => {
    let go: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (go = resolve));
    server = await startServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('one');
      await gate;
      res.end('two');
    });
    const unread = await fetch(server.url);
    discardBody(unread);
    expect(await unread.body!.getReader().read()).toEqual({ done: true, value: undefined });

    const begun = await fetch(server.url);
    const first = begun.body!.getReader();
    expect(new TextDecoder().decode((await first.read()).value)).toBe('one');
    first.releaseLock();
    expect(begun.bodyUsed).toBe(true);
    discardBody(begun);
    go();
    // Not cancelled: the rest still arrives for the one reading it.
    const next = await begun.body!.getReader().read();
    expect([next.done, new TextDecoder().decode(next.value)]).toEqual([false, 'two']);
  });
});
