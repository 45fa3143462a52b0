import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveNode, type NodeServer } from './serve-node.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('toNodeHandler when the client stops reading and leaves', () => {
  let server: NodeServer | undefined;
  afterEach(() => server?.close());

  // send() awaited a `drain` that never came and never cancelled the answer's stream: 0 of 20 settled.
  it("cancels the answer's endless stream and settles, for each of 20 clients, with no report", async () => {
    const clients = 20;
    const pulls: number[] = Array.from({ length: clients }, () => 0);
    const cancelled: unknown[] = [];
    const errors: unknown[] = [];
    const chunk = new Uint8Array(64 * 1024);
    server = await serveNode(
      (request) => {
        const index = Number(new URL(request.url).searchParams.get('client'));
        // Endless, and produced only when asked for (highWaterMark 0): it stops when the adapter stops reading.
        const body = new ReadableStream<Uint8Array>(
          {
            pull: (controller) => {
              pulls[index]! += 1;
              controller.enqueue(chunk);
            },
            cancel: (reason) => void cancelled.push([index, (reason as DOMException).name]),
          },
          { highWaterMark: 0 },
        );
        return new Response(body, { headers: { 'content-type': 'application/octet-stream' } });
      },
      { onError: (error) => errors.push(error) },
    );
    // Each client asks, then reads nothing: the socket buffers fill and the adapter waits for a drain.
    const sockets: Socket[] = [];
    for (let index = 0; index < clients; index += 1) {
      const socket = connect(server.port, '127.0.0.1');
      socket.pause();
      socket.on('error', () => undefined);
      socket.write(`GET /stream?client=${index} HTTP/1.1\r\nHost: x\r\n\r\n`);
      sockets.push(socket);
    }
    // Wait until every stream has stopped being pulled: the adapter is stuck on back-pressure.
    let last = '';
    for (let stable = 0; stable < 5; await sleep(20)) {
      const now = pulls.join();
      stable = now === last && pulls.every((count) => count > 0) ? stable + 1 : 0;
      last = now;
    }
    expect(server.settled).toEqual(Array.from({ length: clients }, () => false));
    for (const socket of sockets) socket.destroy();
    for (let waited = 0; waited < 2000 && !server.settled.every(Boolean); waited += 10) await sleep(10);
    expect(server.settled.filter(Boolean)).toHaveLength(clients);
    expect(cancelled.sort((a, b) => (a as [number])[0] - (b as [number])[0])).toEqual(
      Array.from({ length: clients }, (_, index) => [index, 'AbortError']),
    );
    expect(errors).toEqual([]);
    // Nothing is left to pull from them.
    const after = pulls.join();
    await sleep(50);
    expect(pulls.join()).toBe(after);
  });

  it('cancels the answer when the client left before the handler answered', async () => {
    let cancel!: (reason: unknown) => void;
    const cancelled = new Promise((resolve) => (cancel = resolve));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server = await serveNode(async (request) => {
      await new Promise((resolve) => request.signal.addEventListener('abort', resolve));
      answer();
      return new Response(new ReadableStream({ pull: (controller) => controller.enqueue(new Uint8Array(1)), cancel }));
    });
    const socket = connect(server.port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    while (server.requests.length === 0) await sleep(5);
    socket.destroy();
    await answered;
    expect((await cancelled as DOMException).name).toBe('AbortError');
    while (!server.settled[0]) await sleep(5);
  });
});
