// The one Node-specific part of `pollite/server`: it speaks node:http's
// request/response objects, structurally, so it imports nothing at runtime
// and also takes Express's or Fastify's raw `req`/`res`.
import type { NodeHandlerOptions, NodeRequestLike, NodeResponseLike } from './node-handler-options.js';
import { requestBody, type RequestBody } from './node-request-body.js';
import { toRequest } from './node-request.js';
import { send } from './node-response.js';

/** Methods a fetch `Request` cannot carry: the adapter answers them 501 itself. */
const UNSUPPORTED_METHODS = /^(?:CONNECT|TRACE|TRACK)$/i;

/**
 * Answers with no body, in Node's standard words but for 413 (RFC 9110's; Node 20 still says
 * 'Payload Too Large'). A 413 also closes the connection, as the rest of the body is not read
 * (Fastify does the same).
 */
function refuse(res: NodeResponseLike, status: 400 | 413 | 500 | 501): void {
  if (status === 413) res.writeHead(413, 'Content Too Large', { 'content-length': '0', connection: 'close' });
  else res.writeHead(status, { 'content-length': '0' });
  res.end();
}

/**
 * Serves a web-standard handler (`Request` in, `Response` out) from
 * node:http: `createServer(toNodeHandler(handler))`. The request body is
 * streamed to the handler as it reads it, up to `maxBodyBytes`; a handler
 * that does not read it costs no memory. A body that middleware already
 * parsed (`express.json()` and the like, which leave `req.body` and a read
 * stream) is passed on as that result: a string or bytes as they are,
 * anything else as JSON (so `express.urlencoded()`'s object arrives as JSON
 * under its form Content-Type); `Content-Length` is then dropped. The URL is
 * Express's `originalUrl` when there is one, so a handler mounted under a
 * path sees all of it. The answer is streamed with back-pressure;
 * `request.signal` aborts when the client goes away, and the answer's
 * stream is then cancelled.
 *
 * Throws a `TypeError` naming the bad option when the options are invalid.
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
  const { origin, onError = () => undefined, maxBodyBytes = 1_048_576 } = options;
  if (origin !== undefined && (typeof origin !== 'string' || !URL.canParse(origin))) {
    throw new TypeError('Expected `origin` to be an absolute URL such as \'https://api.example.com\'');
  }
  if (typeof onError !== 'function') throw new TypeError('Expected `onError` to be a function');
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) throw new TypeError('Expected `maxBodyBytes` to be a non-negative integer');

  return async (req, res) => {
    const controller = new AbortController();
    res.once('close', () => {
      // The client closed the connection: an AbortError, as fetch has it.
      if (!res.writableEnded) controller.abort();
    });
    let body: RequestBody | undefined;
    try {
      if (UNSUPPORTED_METHODS.test(req.method ?? '')) return refuse(res, 501);
      if (!req.readableEnded && Number(req.headers['content-length']) > maxBodyBytes) return refuse(res, 413);
      body = requestBody(req, maxBodyBytes);
      let request: Request;
      try {
        request = toRequest(req, origin, controller.signal, body.init);
      } catch {
        // A Host or target no URL can be made of is the client's mistake, not the server's.
        return refuse(res, 400);
      }
      const response = await handler(request);
      await send(response, res, req.method === 'HEAD', controller.signal, body.unfinished);
    } catch (error) {
      // A body over the limit or broken off is the client's doing; so is a connection it closed.
      const failure = body?.failure;
      if (!failure && !controller.signal.aborted) onError(error);
      if (!res.headersSent) refuse(res, failure === 'too large' ? 413 : 500);
      else res.destroy();
    } finally {
      body?.discard();
    }
  };
}
