import type { NodeRequestLike } from './node-handler-options.js';

/**
 * The request target on `base`: a path is appended as it is (so `//evil.example/x`
 * stays a path and never names a host), an absolute target (proxy form) keeps only
 * its path and query, `*` (OPTIONS) is the origin itself.
 */
function requestUrl(target: string, base: string): URL {
  if (target.startsWith('/')) return new URL(new URL(base).origin + target);
  if (target === '*') return new URL(base);
  const absolute = new URL(target);
  return new URL(new URL(base).origin + absolute.pathname + absolute.search);
}

/** The web Request for `req`; throws when its Host or target makes no URL. */
export function toRequest(req: NodeRequestLike, origin: string | undefined, signal: AbortSignal, body: BodyInit | null): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  if (req.readableEnded) {
    // Read before: the body passed on is a parser's result (or none), not the bytes that came.
    headers.delete('content-length');
    headers.delete('transfer-encoding');
  }
  const base = origin ?? `http://${headers.get('host') ?? 'localhost'}`;
  // Express strips the mount path from `url` (`app.use('/mount', handler)`); the handler is owed the whole URL.
  const url = requestUrl(req.originalUrl ?? req.url ?? '/', base);
  // A stream body needs `duplex: 'half'` (not yet in TypeScript's DOM types).
  return new Request(url, { method: req.method ?? 'GET', headers, body, signal, duplex: 'half' } as RequestInit);
}
