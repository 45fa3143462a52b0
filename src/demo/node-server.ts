import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDemoApi, type DemoApi, type DemoApiOptions } from './job-api.js';

/** Serves a web-standard handler from node:http. */
export async function toNodeListener(
  handle: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
  origin: string,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  const body = chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
  const response = await handle(new Request(new URL(req.url ?? '/', origin), { method: req.method ?? 'GET', headers, body: body ?? null }));
  const out: Record<string, string> = {};
  response.headers.forEach((value, key) => (out[key] = value));
  const payload = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  if (payload) out['content-length'] = String(payload.length);
  res.writeHead(response.status, out);
  res.end(payload);
}

/** A running demo API on 127.0.0.1. */
export interface DemoServer {
  url: string;
  api: DemoApi;
  close(): Promise<void>;
}

/** Starts the demo job API on 127.0.0.1 (ephemeral port unless given). */
export async function startDemoServer(options: DemoApiOptions & { port?: number } = {}): Promise<DemoServer> {
  const api = createDemoApi(options);
  let origin = 'http://127.0.0.1';
  const server = createServer((req, res) => {
    toNodeListener(api.handle, req, res, origin).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    api,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
