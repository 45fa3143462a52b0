// The loopback server every runtime of the matrix talks to. Each smoke case
// uses its own `?id=`, so the server's record of what it received can be
// read back (`/__log?id=`) and checked by the runtime under test.
import { createServer } from 'node:http';

const FIXED_DATE = 'Thu, 01 Jan 2026 12:00:30 GMT';

/** Scripted answers, by path; `n` is the 0-based count of requests seen for this id. */
const ROUTES = {
  // 503 paced by Retry-After: 0, then 200 with an ETag, 304 while it matches, then done.
  '/poll': (n, req) => {
    if (n === 0) return { status: 503, headers: { 'retry-after': '0' } };
    if (n === 1) return { status: 200, headers: { etag: '"v1"' }, body: { status: 'running' } };
    if (req.headers['if-none-match'] === '"v1"' && n === 2) return { status: 304, headers: { etag: '"v1"' } };
    return { status: 200, headers: { etag: '"v2"' }, body: { status: 'done' } };
  },
  // Retry-After as seconds, then as an HTTP-date (30 s after the smoke's fixed clock), then done.
  '/retry-after': (n) => {
    if (n === 0) return { status: 503, headers: { 'retry-after': '7' } };
    if (n === 1) return { status: 429, headers: { 'retry-after': FIXED_DATE } };
    return { status: 200, body: { status: 'done' } };
  },
  '/missing': () => ({ status: 404, body: { error: 'no such job' } }),
  // Two 503s, then a 200: for retry() and fetchWithRetry().
  '/flaky': (n) => (n < 2 ? { status: 503, body: { error: 'busy' } } : { status: 200, body: { ok: true, attempt: n + 1 } }),
  // Never answers: for abort and timeouts.
  '/hang': () => null,
};

function cors(res) {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-allow-headers', '*');
  res.setHeader('access-control-allow-methods', 'GET, POST, PUT, DELETE');
  res.setHeader('access-control-expose-headers', 'etag, retry-after');
}

/**
 * Starts the matrix server on 127.0.0.1. `pages` maps extra paths to
 * `{ type, body }` (the browser page and its bundle).
 */
export async function startMatrixServer(pages = {}) {
  const log = new Map();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    cors(res);
    if (req.method === 'OPTIONS') return res.writeHead(204).end();
    const page = pages[url.pathname];
    if (page) return res.writeHead(200, { 'content-type': page.type, 'cache-control': 'no-store' }).end(page.body);
    const id = url.searchParams.get('id') ?? '';
    if (url.pathname === '/__log') {
      const entries = log.get(id) ?? [];
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return res.end(JSON.stringify(entries));
    }
    const route = ROUTES[url.pathname];
    if (!route) return res.writeHead(404).end();
    const entries = log.get(id) ?? [];
    log.set(id, entries);
    const entry = { method: req.method, path: url.pathname, ifNoneMatch: req.headers['if-none-match'] ?? null, cacheControl: req.headers['cache-control'] ?? null, closedEarly: false };
    entries.push(entry);
    const answer = route(entries.length - 1, req);
    if (answer === null) {
      res.on('close', () => (entry.closedEarly = true));
      req.resume();
      return undefined;
    }
    req.resume();
    const body = answer.body === undefined ? '' : JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      ...(body ? { 'content-type': 'application/json' } : {}),
      'content-length': Buffer.byteLength(body),
      ...answer.headers,
    });
    return res.end(answer.status === 304 ? undefined : body);
  });
  server.keepAliveTimeout = 500;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  // Connecting here is refused, which is the network error each runtime words differently. Port 2 is below every
  // ephemeral range, so no server of a parallel test can be given it (a just-closed port can be), and it is not on
  // the Fetch standard's bad-port list, so each runtime really dials it.
  const deadUrl = 'http://127.0.0.1:2/gone';
  return {
    base,
    deadUrl,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
