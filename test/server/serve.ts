import { createServer, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, type NodeHandlerOptions } from '../../src/server/node.js';

/** What the node:http adapter handed to the handler, and what it answered. */
export interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  status: number;
}

/** A real node:http server on 127.0.0.1 serving `handler` through `toNodeHandler`, recording every exchange. */
export async function serveWeb(
  handler: (request: Request) => Response | Promise<Response>,
  options?: NodeHandlerOptions,
  serverOptions: ServerOptions = {},
): Promise<{ url: string; exchanges: Exchange[]; close: () => Promise<void> }> {
  const exchanges: Exchange[] = [];
  const recorded = async (request: Request): Promise<Response> => {
    const body = await request.clone().text();
    const response = await handler(request);
    exchanges.push({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body,
      status: response.status,
    });
    return response;
  };
  const server = createServer(serverOptions, toNodeHandler(recorded, options));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
