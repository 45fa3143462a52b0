import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP server on 127.0.0.1 that answers each HTTP request with raw bytes of
 * the test's choosing: lies about Content-Length, broken status lines,
 * nothing at all. Counts requests (by their request line) and open sockets.
 */
export interface RawServer {
  url: string;
  requests: number;
  open: () => number;
  close(): Promise<void>;
}

export async function startRawServer(answer: (socket: Socket, index: number) => void): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const state = { requests: 0 };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // One answer per complete request head (these tests send no bodies).
      while (buffered.includes('\r\n\r\n')) {
        buffered = buffered.slice(buffered.indexOf('\r\n\r\n') + 4);
        answer(socket, state.requests++);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/job`,
    get requests() {
      return state.requests;
    },
    open: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
