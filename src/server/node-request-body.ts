import type { NodeRequestLike } from './node-handler-options.js';

/** The body a web Request gets from a Node request, and what the adapter must know of it afterwards. */
export interface RequestBody {
  /** The web Request's body: null when there is none. */
  readonly init: BodyInit | null;
  /** Why reading the body failed, if it did: it passed the limit, or the client broke it off (or garbled it). */
  readonly failure: 'too large' | 'broken' | undefined;
  /** Part of a body of unknown length may still be on its way: the connection cannot carry another request. */
  readonly unfinished: boolean;
  /** Lets what the handler left unread flow past, so the connection can carry its next request. */
  discard(): void;
}

/** What `express.json()`, `.text()`, `.raw()` or `.urlencoded()` left in `req.body`, as a body. */
const serialise = (body: unknown): BodyInit =>
  typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body);

/**
 * The body of `req`, streamed: nothing is read before the handler reads, then
 * a chunk at a time (`highWaterMark: 0`), and reading fails past `limit`
 * bytes. A request a body parser already read passes on that parser's result.
 * A GET or HEAD has none (a fetch Request cannot carry one); Node reads past it.
 */
export function requestBody(req: NodeRequestLike, limit: number): RequestBody {
  const { 'content-length': length, 'transfer-encoding': coding } = req.headers;
  // RFC 9112 §6.3: an HTTP/1 request with neither Content-Length nor Transfer-Encoding has no body.
  const bodiless = length === '0' || (length === undefined && coding === undefined && req.httpVersionMajor !== 2);
  let ended = true;
  let failure: RequestBody['failure'];
  let discarding = false;
  let received = 0;
  let init: BodyInit | null = null;
  const discard = (): void => {
    if (ended || failure) return;
    discarding = true;
    req.resume();
  };
  if (req.method === 'GET' || req.method === 'HEAD') {
    // No body to pass on.
  } else if (req.readableEnded) {
    if (req.body !== undefined) init = serialise(req.body);
  } else if (!bodiless) {
    ended = false;
    init = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          // Paused, a 'data' listener reads nothing; one never resumed is left to Node, which reads past it.
          req.pause();
          req.on('data', (chunk) => {
            const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
            received += bytes.length;
            if (failure || discarding) return;
            if (received > limit) {
              failure = 'too large';
              req.pause();
              controller.error(new RangeError(`The request body is larger than \`maxBodyBytes\` (${limit})`));
            } else {
              controller.enqueue(bytes);
              if (controller.desiredSize! <= 0) req.pause();
            }
          });
          req.on('end', () => {
            ended = true;
            if (!discarding && !failure) controller.close();
          });
          req.on('error', (error) => {
            failure ??= 'broken';
            controller.error(error);
          });
        },
        pull: () => void req.resume(),
        cancel: discard,
      },
      { highWaterMark: 0 },
    );
  }
  return {
    init,
    get failure() {
      return failure;
    },
    get unfinished() {
      return !ended && length === undefined;
    },
    discard,
  };
}
