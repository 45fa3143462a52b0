import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '../server/node.js';
import { createDemoApi, type DemoApi, type DemoApiOptions } from './job-api.js';

/**
 * Serves a web-standard handler from node:http.
 * @deprecated Use `toNodeHandler` from `pollite/server`: `createServer(toNodeHandler(handle))`.
 */
export async function toNodeListener(
  handle: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
  origin: string,
): Promise<void> {
  let failure: unknown;
  await toNodeHandler(handle, { origin, onError: (error) => (failure = error) })(req, res);
  if (failure !== undefined) throw failure;
}

/** A running demo API on 127.0.0.1. */
export interface DemoServer {
  url: string;
  api: DemoApi;
  close(): Promise<void>;
}

/**
 * Starts the demo job API on 127.0.0.1 (ephemeral port unless given),
 * served by `pollite/server`'s node:http adapter.
 */
export async function startDemoServer(options: DemoApiOptions & { port?: number } = {}): Promise<DemoServer> {
  const api = createDemoApi(options);
  const server = createServer(toNodeHandler(api.handle));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    api,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
