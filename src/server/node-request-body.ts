import type { NodeRequestLike } from './node-handler-options.js';

/** The body a web Request gets from a Node request, and what the adapter must know of it afterwards. */
export interface RequestBody {
  /** The web Request's body: null when there is none. */
  readonly init: BodyInit | null;
  /** A body parser's result, serialised again: `Content-Length` no longer describes it. */
  readonly parsed: boolean;
  /** The body passed the limit while it was read. */
  readonly tooLarge: boolean;
  /** Part of a body of unknown length may still be on its way: the connection cannot carry another request. */
  readonly unfinished: boolean;
  /** Lets what the handler left unread flow past, still counted, so the connection can carry its next request. */
  discard(): void;
}

/** What `express.json()`, `.text()`, `.raw()` or `.urlencoded()` left in `req.body`, as a body. */
const serialise = (body: unknown): BodyInit =>
  typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body);

/**
 * The body of `req`, streamed: nothing is read before the handler reads, a
 * chunk at a time (`highWaterMark: 0`), and reading fails past `limit`
 * bytes. A request a body parser already read passes on that parser's result.
 */
export function requestBody(req: NodeRequestLike, limit: number): RequestBody {
  const headers = req.headers;
  const length = headers['content-length'];
  if (req.readableEnded) {
    const parsed = req.body !== undefined;
    return { init: parsed ? serialise(req.body) : null, parsed, tooLarge: false, unfinished: false, discard() {} };
  }
  // RFC 9112 §6.3: an HTTP/1 request with neither Content-Length nor Transfer-Encoding has no body.
  let ended = length === '0' || (length === undefined && headers['transfer-encoding'] === undefined && req.httpVersionMajor !== 2);
  let tooLarge = false;
  let discarding = false;
  let listening = false;
  let received = 0;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const listen = (): void => {
    if (listening) return;
    listening = true;
    req.on('data', (chunk) => {
      if (ended || tooLarge) return;
      const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
      received += bytes.length;
      if (received > limit) {
        tooLarge = true;
        req.pause();
        controller.error(new RangeError(`The request body is larger than \`maxBodyBytes\` (${limit})`));
      } else if (!discarding) {
        controller.enqueue(bytes);
        if (controller.desiredSize! <= 0) req.pause();
      }
    });
    req.on('end', () => {
      ended = true;
      if (!discarding) controller.close();
    });
    req.on('error', (error) => {
      ended = true;
      controller.error(error);
    });
  };
  const discard = (): void => {
    if (ended || tooLarge) return;
    discarding = true;
    listen();
    req.resume();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      pull: () => {
        listen();
        req.resume();
      },
      cancel: discard,
    },
    { highWaterMark: 0 },
  );
  return {
    init: ended ? null : stream,
    parsed: false,
    get tooLarge() {
      return tooLarge;
    },
    get unfinished() {
      return !ended && length === undefined;
    },
    discard,
  };
}
