import { afterEach, describe, expect, it } from 'vitest';
import { readText } from '../../src/http/body.js';
import { discardBody } from '../../src/kit/index.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { bomb, bombServer, CODINGS, countingFetch, READ_AHEAD } from './bomb.js';

const MiB = 2 ** 20;

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

  it('does not trust a Content-Length: a body of exactly the limit is read, a larger one is a RangeError', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '5' });
      res.end('hello');
    });
    expect(await readText(await fetch(server.url), 5)).toBe('hello');
    await expect(readText(await fetch(server.url), 4)).rejects.toThrow(new RangeError('The body is larger than 4 bytes'));
  });

  it('reads a body that never came (a null body) as the empty string', async () => {
    expect(await readText(new Response(null, { status: 200 }), 0)).toBe('');
  });
});

describe('readText counts the bytes decoded, not the bytes on the wire', () => {
  it.each(CODINGS)('%s: 1 MiB of JSON under 4 KiB on the wire, with an honest Content-Length, is a RangeError past 4 KiB, cancelled a chunk or two past it', async (coding) => {
    server = await bombServer(coding, MiB);
    const counted = countingFetch();
    const response = await counted.fetch(server.url);
    // The header is the truth about the wire, and within the limit.
    expect(Number(response.headers.get('content-length'))).toBe(bomb(coding, MiB).length);
    expect(bomb(coding, MiB).length).toBeLessThan(4096);
    await expect(readText(response, 4096)).rejects.toThrow(new RangeError('The body is larger than 4096 bytes'));
    // What was pulled is the limit and the chunks fetch decoded ahead, not the megabyte.
    expect(counted.read()).toBeGreaterThan(4096);
    expect(counted.read()).toBeLessThan(4096 + READ_AHEAD);
  });

  it.each(CODINGS)('%s: a compressed body of exactly the limit, decoded, is read whole; a byte less of limit is a RangeError', async (coding) => {
    server = await bombServer(coding, 100_000);
    expect(await readText(await fetch(server.url), 100_000)).toBe(`${' '.repeat(99_998)}{}`);
    await expect(readText(await fetch(server.url), 99_999)).rejects.toThrow(new RangeError('The body is larger than 99999 bytes'));
  });

  it('a body longer than its headers say (a Response made by a fetch wrapper or a service worker) is counted, and cancelled past the limit', async () => {
    let pulls = 0;
    let cancelled = false;
    const chunk = new Uint8Array(1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        if (pulls > 64) controller.close();
        else controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    // No Content-Encoding, a Content-Length of 2: nothing in the headers hints at the 64 KiB that follow.
    const response = new Response(body, { headers: { 'content-type': 'application/json', 'content-length': '2' } });
    await expect(readText(response, 2048)).rejects.toThrow(new RangeError('The body is larger than 2048 bytes'));
    expect(cancelled).toBe(true);
    expect(pulls).toBeLessThanOrEqual(4);
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
