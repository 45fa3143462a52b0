import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAnswers, rawExchange, serveNode, type NodeServer } from './serve-node.js';

const MiB = 1024 * 1024;

/** A full collection, to measure memory that is still held (not garbage yet to be collected). */
const gc = ((): (() => void) => {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();
const held = (): number => {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

/**
 * POSTs `size` zero bytes to `port` over a raw connection, with a Content-Length, one reused 64 KiB
 * chunk at a time (so the client holds 64 KiB), then reads the answer to the end.
 */
function postZeros(port: number, size: number): Promise<{ head: string; sent: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let sent = 0;
    let received = '';
    socket.on('error', reject);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('end', () => resolve({ head: received.slice(0, received.indexOf('\r\n')), sent }));
    socket.write(`POST /jobs/1 HTTP/1.1\r\nHost: x\r\nContent-Length: ${size}\r\n\r\n`);
    const chunk = new Uint8Array(64 * 1024);
    const write = (): void => {
      while (sent < size) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', write);
      }
      // All sent: now the server may close, once it has read past the body.
      socket.end();
    };
    write();
  });
}

describe('toNodeHandler request bodies', () => {
  let server: NodeServer | undefined;
  afterEach(() => server?.close());

  // The body was read whole before the handler ran: a 300 MiB POST answered 405 grew the server by 959 MB.
  it('streams the body as the handler reads it: a 50 MiB POST it answers 405 unread holds the server under 8 MiB', async () => {
    const seen: Array<{ bytesRead: number; growth: number }> = [];
    let baseline = 0;
    server = await serveNode(
      () => {
        gc();
        seen.push({ bytesRead: server!.requests[0]!.socket.bytesRead, growth: held() - baseline });
        return new Response(null, { status: 405, headers: { allow: 'GET' } });
      },
      { maxBodyBytes: 64 * MiB },
    );
    gc();
    baseline = held();
    const answer = await postZeros(server.port, 50 * MiB);
    expect(answer).toEqual({ head: 'HTTP/1.1 405 Method Not Allowed', sent: 50 * MiB });
    expect(seen).toHaveLength(1);
    // When the handler answered, the server had read the head and at most a few socket reads of the body.
    expect(seen[0]!.bytesRead).toBeLessThan(MiB);
    // What it holds then (after a full collection): its client's chunk and buffers, never the body.
    expect(seen[0]!.growth).toBeLessThan(8 * MiB);
    // The rest was read past, and the connection served its client to the end.
    expect(server.requests[0]!.socket.bytesRead).toBeGreaterThan(50 * MiB);
    expect(server.settled).toEqual([true]);
  });

  it('refuses a Content-Length over maxBodyBytes with 413 before reading any of it, without calling the handler', async () => {
    let calls = 0;
    server = await serveNode(
      () => {
        calls += 1;
        return new Response('ok');
      },
      { maxBodyBytes: 1000 },
    );
    // Only the head is sent: the answer cannot wait for the body.
    const answer = parseAnswers(await rawExchange(server.port, ['POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n']));
    expect(answer).toMatchObject([{ status: 'HTTP/1.1 413 Content Too Large', headers: { connection: 'close', 'content-length': '0' }, body: '' }]);
    expect(calls).toBe(0);
    // At the limit itself the handler gets it all.
    const body = 'x'.repeat(1000);
    server = await serveNode(async (request) => new Response(String((await request.text()).length)), { maxBodyBytes: 1000 });
    expect(await (await fetch(server.url, { method: 'POST', body })).text()).toBe('1000');
  });

  it('counts a chunked body as the handler reads it and cuts it at maxBodyBytes: 413, the connection closed', async () => {
    const read: number[] = [];
    const errors: unknown[] = [];
    const onError: unknown[] = [];
    server = await serveNode(
      async (request) => {
        const reader = request.body!.getReader();
        try {
          for (let next = await reader.read(); !next.done; next = await reader.read()) read.push(next.value.length);
        } catch (error) {
          errors.push(error);
          throw error;
        }
        return new Response('read it all');
      },
      { maxBodyBytes: 4000, onError: (error) => onError.push(error) },
    );
    const chunk = `3e8\r\n${'x'.repeat(1000)}\r\n`;
    const answer = await rawExchange(server.port, [
      'POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      ...Array.from({ length: 10 }, () => chunk),
      '0\r\n\r\n',
    ]);
    expect(parseAnswers(answer)).toMatchObject([{ status: 'HTTP/1.1 413 Content Too Large', headers: { connection: 'close', 'content-length': '0' }, body: '' }]);
    // Exactly the 4000 bytes within the limit reached the handler, however TCP cut them.
    expect(read.reduce((sum, length) => sum + length, 0)).toBe(4000);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('The request body is larger than `maxBodyBytes` (4000)');
    expect(onError).toEqual([]);
    expect(server.settled).toEqual([true]);
  });

  it('lets a handler answer its own way when the body is cut, and still closes the connection', async () => {
    server = await serveNode(
      (request) => request.text().then(
        () => new Response('whole'),
        () => new Response('too big for me', { status: 400 }),
      ),
      { maxBodyBytes: 10 },
    );
    const answer = await rawExchange(server.port, ['POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n', 'b\r\nhello world\r\n', '0\r\n\r\n']);
    expect(parseAnswers(answer)).toMatchObject([{ status: 'HTTP/1.1 400 Bad Request', headers: { connection: 'close' }, body: 'too big for me' }]);
  });

  it('reads past a body the handler left unread, so the connection carries the next request', async () => {
    const bodies: Array<string | null> = [];
    server = await serveNode(async (request) => {
      if (request.method === 'POST') return new Response(null, { status: 405 });
      bodies.push(request.body === null ? null : await request.text());
      return new Response('second');
    });
    const answer = await rawExchange(
      server.port,
      [
        `POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n${'y'.repeat(100_000)}`,
        'GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      ],
    );
    const answers = parseAnswers(answer);
    expect(answers.map(({ status, headers, body }) => [status, headers.connection, body])).toEqual([
      ['HTTP/1.1 405 Method Not Allowed', 'keep-alive', ''],
      ['HTTP/1.1 200 OK', 'close', 'second'],
    ]);
    expect(bodies).toEqual([null]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.socket).toBe(server.requests[1]!.socket);
  });

  it('gives a bodiless POST a null body, and a body its stream and Content-Length', async () => {
    const seen: unknown[] = [];
    server = await serveNode(async (request) => {
      seen.push([request.body === null, request.headers.get('content-length'), request.body === null ? null : await request.text()]);
      return new Response(null, { status: 204 });
    });
    await rawExchange(server.port, ['POST /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    await fetch(server.url, { method: 'POST' });
    await fetch(server.url, { method: 'PUT', body: 'hello' });
    expect(seen).toEqual([
      [true, null, null],
      [true, '0', null],
      [false, '5', 'hello'],
    ]);
  });

  it('fails the body read, without a report, when the client leaves halfway through its body', async () => {
    const onError: unknown[] = [];
    let failed!: (error: unknown) => void;
    const readFailed = new Promise((resolve) => (failed = resolve));
    server = await serveNode((request) => request.text().then(() => new Response('whole'), (error: unknown) => (failed(error), Promise.reject(error))), {
      onError: (error) => onError.push(error),
    });
    const client = connect(server.port, '127.0.0.1');
    client.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nhalf');
    await new Promise((resolve) => setTimeout(resolve, 20));
    client.destroy();
    expect(await readFailed).toBeInstanceOf(Error);
    while (!server.settled[0]) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(onError).toEqual([]);
    expect(server.settled).toEqual([true]);
  });
});
