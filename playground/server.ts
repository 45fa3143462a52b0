import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { startDemoServer, type DemoServer } from '../src/demo/node-server.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The playground: its built page on one port of 127.0.0.1, the demo job API on another. */
export interface Playground {
  /** Open this. */
  url: string;
  demo: DemoServer;
  close(): Promise<void>;
}

/** Serves the page built in `dir` and starts the demo job API it talks to (cross-origin, as a real API would be). */
export async function startPlayground(dir: string, options: { port?: number } = {}): Promise<Playground> {
  const demo = await startDemoServer();
  const page = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = normalize(join(dir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (body) => {
        const text = extname(file) === '.html' ? body.toString('utf8').replace('name="pollite-api" content=""', `name="pollite-api" content="${demo.url}"`) : body;
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
        res.end(text);
      },
      () => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    page.once('error', reject);
    page.listen(options.port ?? 0, '127.0.0.1', () => {
      page.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    await demo.close();
    throw error;
  });
  const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
  return {
    url,
    demo,
    close: async () => {
      page.closeAllConnections();
      await new Promise<void>((resolve) => page.close(() => resolve()));
      await demo.close();
    },
  };
}
