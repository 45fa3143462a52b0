import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server under test received it, and what it answered. */
export interface Arrival {
  /** The polling client that sent it (its `x-client` header), if any. */
  client: string | undefined;
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** When it arrived, epoch ms. */
  at: number;
  /** The request's headers. */
  request: IncomingMessage['headers'];
  /** The status answered; 0 until the answer's head is written. */
  status: number;
  /** The answer's headers, names lower-cased, as written. */
  headers: Record<string, string>;
}

/** A framework's app on its own node:http server on 127.0.0.1, every request recorded. */
export interface RecordedServer {
  url: string;
  arrivals: Arrival[];
  /** The arrivals of one path (without its query), in order. */
  at(path: string): Arrival[];
  /** Waits until every request answered so far is on record (nginx logs each just after its answer). */
  settle?(): Promise<void>;
  close(): Promise<void>;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The header values of writeHead's argument: an object, or a flat or paired array. */
function headerList(given: unknown): Array<[string, string]> {
  if (!given || typeof given !== 'object') return [];
  if (!Array.isArray(given)) return Object.entries(given as Record<string, unknown>).map(([k, v]) => [k, String(v)]);
  if (given.length > 0 && Array.isArray(given[0])) return (given as Array<[string, unknown]>).map(([k, v]) => [k, String(v)]);
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < given.length; i += 2) pairs.push([String(given[i]), String(given[i + 1])]);
  return pairs;
}

/**
 * Records `res`'s head as it is written: frameworks set headers with
 * `setHeader` (Express, Koa) or hand them all to `writeHead` (Fastify,
 * Hono's node server), which node:http does not keep.
 */
function recordHead(res: ServerResponse, arrival: Arrival): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    arrival.status = status;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.getHeaders())) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    // writeHead(status, [reason], [headers]): the reason may be left `undefined`.
    for (const [name, value] of headerList(rest.find((arg) => typeof arg === 'object' && arg !== null))) headers[name.toLowerCase()] = value;
    arrival.headers = headers;
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}

/** Wraps `listener` so that every request it serves is recorded. */
export function recording(listener: Listener, arrivals: Arrival[]): Listener {
  return (req, res) => {
    const client = req.headers['x-client'];
    const arrival: Arrival = { client: typeof client === 'string' ? client : undefined, method: req.method ?? 'GET', path: req.url ?? '/', at: Date.now(), request: req.headers, status: 0, headers: {} };
    arrivals.push(arrival);
    recordHead(res, arrival);
    listener(req, res);
  };
}

/** Listens on 127.0.0.1 on a free port. */
export async function listen(server: Server): Promise<string> {
  server.keepAliveTimeout = 2000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server` and every connection it holds. */
export const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** Serves `listener` (an Express app, Koa's callback, Hono's request listener) on its own recorded server. */
export async function serveRecorded(listener: Listener): Promise<RecordedServer> {
  const arrivals: Arrival[] = [];
  const server = createServer(recording(listener, arrivals));
  return recordedServer(server, arrivals, await listen(server));
}

/** The {@link RecordedServer} of a server already listening at `url`. */
export function recordedServer(server: Server, arrivals: Arrival[], url: string, close = () => closeServer(server)): RecordedServer {
  return { url, arrivals, at: (path) => arrivals.filter((a) => a.path.split('?')[0] === path), close };
}
