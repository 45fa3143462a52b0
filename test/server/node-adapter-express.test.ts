import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/server/node.js';

// Express 5 (a devDependency, without its types): only what these tests call of it.
type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
interface ExpressApp extends Middleware {
  use(...handlers: [string | Middleware, ...Middleware[]]): ExpressApp;
  post(path: string, ...handlers: Middleware[]): ExpressApp;
}
interface Express {
  (): ExpressApp;
  json(): Middleware;
  text(): Middleware;
  raw(): Middleware;
  urlencoded(options: { extended: boolean }): Middleware;
}
const expressModule: string = 'express';
const { default: express } = (await import(expressModule)) as { default: Express };

/** What the web handler saw. */
interface Seen {
  url: string;
  body: string;
  contentLength: string | null;
  contentType: string | null;
}

describe('toNodeHandler inside Express 5', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(() => close?.());

  /** `app` on 127.0.0.1; its URL. */
  const listen = async (app: ExpressApp): Promise<string> => {
    const server = createServer((req, res) => app(req, res, () => res.writeHead(404).end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const seen: Seen[] = [];
  const recorder = toNodeHandler(async (request) => {
    seen.push({
      url: request.url,
      body: await request.text(),
      contentLength: request.headers.get('content-length'),
      contentType: request.headers.get('content-type'),
    });
    return new Response('ok');
  });
  afterEach(() => void seen.splice(0));

  it('sees the whole URL of a handler mounted under a path (it lost the mount path)', async () => {
    const url = await listen(express().use('/api/v1', recorder as Middleware));
    expect(await (await fetch(`${url}/api/v1/jobs/7?x=1`)).text()).toBe('ok');
    expect(seen.map((s) => s.url)).toEqual([`${url}/api/v1/jobs/7?x=1`]);
  });

  it('gets the body express.json() already read, as JSON, without the stale Content-Length (it was empty)', async () => {
    const url = await listen(express().use('/api', express.json(), recorder as Middleware));
    const response = await fetch(`${url}/api/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{ "name" :  "report",\n "pages": [1, 2] }',
    });
    expect(response.status).toBe(200);
    expect(seen).toEqual([{ url: `${url}/api/jobs`, body: '{"name":"report","pages":[1,2]}', contentLength: null, contentType: 'application/json' }]);
  });

  it('gets what express.text(), express.raw() and express.urlencoded() made of the body', async () => {
    const app = express()
      .post('/text', express.text(), recorder as Middleware)
      .post('/raw', express.raw(), recorder as Middleware)
      .post('/form', express.urlencoded({ extended: false }), recorder as Middleware);
    const url = await listen(app);
    await fetch(`${url}/text`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'héllo' });
    await fetch(`${url}/raw`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array([104, 105]) });
    await fetch(`${url}/form`, { method: 'POST', body: new URLSearchParams({ a: '1', b: 'two' }) });
    expect(seen.map(({ body, contentType }) => [body, contentType])).toEqual([
      ['héllo', 'text/plain'],
      ['hi', 'application/octet-stream'],
      ['{"a":"1","b":"two"}', 'application/x-www-form-urlencoded;charset=UTF-8'],
    ]);
  });

  it('streams the body itself when no parser read it (express.json() skips other types)', async () => {
    const url = await listen(express().use(express.json(), recorder as Middleware));
    await fetch(`${url}/upload`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'a,b\n1,2' });
    expect(seen).toEqual([{ url: `${url}/upload`, body: 'a,b\n1,2', contentLength: '7', contentType: 'text/csv' }]);
  });
});
