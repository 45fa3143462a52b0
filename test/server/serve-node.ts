import { createServer, type IncomingMessage, type ServerOptions } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { toNodeHandler, type NodeHandlerOptions } from '../../src/server/node.js';

/** A node:http server on 127.0.0.1 serving `handler` through `toNodeHandler`, untouched (no recording that reads bodies). */
export interface NodeServer {
  url: string;
  port: number;
  /** The Node requests, as they came. */
  requests: IncomingMessage[];
  /** The adapter's promise for each request, as a settled flag. */
  settled: boolean[];
  close(): Promise<void>;
}

export async function serveNode(
  handler: (request: Request) => Response | Promise<Response>,
  options?: NodeHandlerOptions,
  serverOptions: ServerOptions = {},
): Promise<NodeServer> {
  const listener = toNodeHandler(handler, options);
  const requests: IncomingMessage[] = [];
  const settled: boolean[] = [];
  const server = createServer(serverOptions, (req, res) => {
    const index = requests.push(req) - 1;
    settled[index] = false;
    void listener(req, res).finally(() => (settled[index] = true));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    settled,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Writes `parts` to a raw TCP connection to `port`, one after another, and
 * resolves with everything the server sent (latin1) once it closes the
 * connection, or once `until` holds for what came so far.
 */
export function rawExchange(port: number, parts: Array<string | Uint8Array>, until?: (received: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (until?.(received)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('end', () => resolve(received));
    // The server may cut the connection while parts are still being written (EPIPE, ECONNRESET).
    socket.on('error', (error) => (received === '' ? reject(error) : resolve(received)));
    for (const part of parts) socket.write(part);
  });
}

/** One HTTP/1.1 answer as read off the wire: status line, headers (names lower-cased), body decoded from its framing. */
export interface RawAnswer {
  status: string;
  headers: Record<string, string>;
  body: string;
}

/** The answers in `raw`, in order (Content-Length or chunked framing; anything else runs to the end). */
export function parseAnswers(raw: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = raw;
  while (rest !== '') {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) throw new Error(`An incomplete head: ${JSON.stringify(rest.slice(0, 200))}`);
    const [status, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    rest = rest.slice(headEnd + 4);
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (let size = parseInt(rest, 16); ; size = parseInt(rest, 16)) {
        const dataStart = rest.indexOf('\r\n') + 2;
        body += rest.slice(dataStart, dataStart + size);
        rest = rest.slice(dataStart + size + 2);
        if (size === 0) break;
      }
    } else {
      const length = headers['content-length'] === undefined ? rest.length : Number(headers['content-length']);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    answers.push({ status: status!, headers, body });
  }
  return answers;
}
