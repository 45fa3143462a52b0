// The one Node-specific file of `pollite/server`: it speaks node:http's
// request/response objects, structurally, so it imports nothing at runtime
// and also takes Express's or Fastify's raw `req`/`res`.

/** What {@link toNodeHandler} reads from node:http's `IncomingMessage`. */
export interface NodeRequestLike extends AsyncIterable<Uint8Array | string> {
  method?: string | undefined;
  url?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** What {@link toNodeHandler} writes to node:http's `ServerResponse`. */
export interface NodeResponseLike {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  writeHead(status: number, headers: Record<string, string | string[]>): unknown;
  writeHead(status: number, statusMessage: string, headers: Record<string, string | string[]>): unknown;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  once(event: 'close' | 'drain', listener: () => void): unknown;
  destroy(error?: Error): unknown;
}

/** Options of {@link toNodeHandler}. */
export interface NodeHandlerOptions {
  /**
   * The origin requests are addressed to, e.g. `'https://api.example.com'`,
   * when the `Host` header should not be trusted (behind a proxy).
   * @default `http://` + the request's Host header
   */
  origin?: string;
  /**
   * Called when the handler throws or the answer cannot be sent; the client
   * gets a bare 500 (or a cut connection once the answer has started).
   * @default () => {}, the error is dropped
   */
  onError?: (error: unknown) => void;
}

function toRequest(req: NodeRequestLike, origin: string | undefined, signal: AbortSignal, body: BodyInit | null): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const base = origin ?? `http://${headers.get('host') ?? 'localhost'}`;
  return new Request(requestUrl(req.url ?? '/', base), { method: req.method ?? 'GET', headers, body, signal });
}

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

/** Methods a fetch `Request` cannot carry: the adapter answers them 501 itself. */
const UNSUPPORTED_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** Answers a request that never reached the handler, with no body. */
function refuse(res: NodeResponseLike, status: 400 | 501): void {
  res.writeHead(status, status === 400 ? 'Bad Request' : 'Not Implemented', { 'content-length': '0' });
  res.end();
}

async function readBody(req: NodeRequestLike): Promise<BodyInit | null> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of req) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    chunks.push(bytes);
    length += bytes.length;
  }
  if (length === 0) return null;
  const body = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

async function send(response: Response, res: NodeResponseLike, isHead: boolean): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  // An empty statusText lets Node send the standard reason phrase.
  if (response.statusText) res.writeHead(response.status, response.statusText, headers);
  else res.writeHead(response.status, headers);
  if (response.body && !isHead) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (res.writableEnded) break;
      // Respect back-pressure: wait for the socket to drain before writing on.
      if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve));
    }
  } else {
    await response.body?.cancel();
  }
  res.end();
}

/**
 * Serves a web-standard handler (`Request` in, `Response` out) from
 * node:http: `createServer(toNodeHandler(handler))`. The request body is
 * read whole before the handler runs; the answer is streamed, with
 * back-pressure. `request.signal` aborts when the client goes away.
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(toNodeHandler(pollingCors({ origin: '*' })(handler))).listen(8080);
 */
export function toNodeHandler(
  handler: (request: Request) => Response | Promise<Response>,
  options: NodeHandlerOptions = {},
): (req: NodeRequestLike, res: NodeResponseLike) => Promise<void> {
  if (typeof handler !== 'function') throw new TypeError('Expected `handler` to be a function');
  if (typeof options !== 'object' || options === null) throw new TypeError('Expected `options` to be an object');
  const { origin, onError = () => undefined } = options;
  if (origin !== undefined && (typeof origin !== 'string' || !URL.canParse(origin))) {
    throw new TypeError('Expected `origin` to be an absolute URL such as \'https://api.example.com\'');
  }
  if (typeof onError !== 'function') throw new TypeError('Expected `onError` to be a function');

  return async (req, res) => {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableEnded) controller.abort(new DOMException('The client closed the connection', 'AbortError'));
    });
    try {
      if (UNSUPPORTED_METHODS.has((req.method ?? '').toUpperCase())) return refuse(res, 501);
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const body = hasBody ? await readBody(req) : null;
      let request: Request;
      try {
        request = toRequest(req, origin, controller.signal, body);
      } catch {
        // A Host or target no URL can be made of is the client's mistake, not the server's.
        return refuse(res, 400);
      }
      const response = await handler(request);
      await send(response, res, req.method === 'HEAD');
    } catch (error) {
      if (!controller.signal.aborted) onError(error);
      if (!res.headersSent) {
        res.writeHead(500, 'Internal Server Error', { 'content-length': '0' });
        res.end();
      } else {
        res.destroy();
      }
    }
  };
}
