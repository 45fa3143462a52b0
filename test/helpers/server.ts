import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the test server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** ms since the server started. */
  at: number;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, seen: SeenRequest, index: number) => void | Promise<void>;

/** A real node:http server on 127.0.0.1 with an ephemeral port that records what it receives. */
export interface TestServer {
  url: string;
  requests: SeenRequest[];
  /** Requests being handled right now, and the most ever at once. */
  inFlight: { now: number; max: number };
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const inFlight = { now: 0, max: 0 };
  const started = Date.now();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    inFlight.now += 1;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    let finished = false;
    const done = (): void => {
      if (finished) return;
      finished = true;
      inFlight.now -= 1;
    };
    res.on('close', done);
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now() - started,
      };
      requests.push(seen);
      Promise.resolve(handler(req, res, seen, requests.length - 1)).catch((error: unknown) => {
        res.statusCode = 599;
        res.end(String(error));
      });
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    inFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends a JSON body with optional headers. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A script step (see {@link scripted}) that answers with {@link sendJson}. */
export const json =
  (status: number, body: unknown, headers?: Record<string, string>) =>
  (res: ServerResponse): void =>
    sendJson(res, status, body, headers);

/** Answers from a script: the i-th request gets script[i] (the last entry repeats). */
export function scripted(script: Array<(res: ServerResponse, seen: SeenRequest) => void>): Handler {
  return (_req, res, seen, index) => script[Math.min(index, script.length - 1)]!(res, seen);
}

/**
 * A loopback URL whose connections are refused, every time. Closing a test server and reusing its port
 * is a race: on a busy machine a parallel test's server can be given that very port. Port 2 is below every
 * ephemeral range (so no test server can get it), nothing listens there, and it is not on the Fetch
 * standard's list of bad ports (so fetch really dials it and gets ECONNREFUSED).
 */
export const REFUSED_URL = 'http://127.0.0.1:2';
