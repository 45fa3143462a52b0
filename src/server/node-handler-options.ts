/**
 * What {@link toNodeHandler} reads from node:http's `IncomingMessage` (or
 * Express's `req`, which is one).
 */
export interface NodeRequestLike {
  /** The request method; `GET` when absent. */
  method?: string | undefined;
  /** The request target (path and query), as node:http gives it. */
  url?: string | undefined;
  /** The URL before a router stripped its mount path (Express `app.use('/mount', ...)`); preferred to `url`. */
  originalUrl?: string | undefined;
  /** The request headers, names in lower case, as node:http gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The HTTP major version (1 or 2): an HTTP/1 client is told when the connection closes. */
  httpVersionMajor?: number;
  /** True once the body was read to its end, by a body parser for example. */
  readableEnded?: boolean;
  /** What a body parser (`express.json()`, `express.text()`...) made of the body, when one ran. */
  body?: unknown;
  /** Subscribes to the body's chunks, its end and its failure. */
  on(event: 'data' | 'end' | 'error', listener: (chunk: Uint8Array | string) => void): unknown;
  /** Stops the flow of the body while the handler is not reading (backpressure). */
  pause(): unknown;
  /** Lets the body flow again. */
  resume(): unknown;
}

/** What {@link toNodeHandler} writes to node:http's `ServerResponse`. */
export interface NodeResponseLike {
  /** True once the status and headers were sent. */
  readonly headersSent: boolean;
  /** True once the answer was ended. */
  readonly writableEnded: boolean;
  /** With `headers` as name, value, name, value... (several `Set-Cookie` stay apart), or an object. */
  writeHead(status: number, headers: Record<string, string> | string[]): unknown;
  /** The same, with a reason phrase. */
  writeHead(status: number, statusMessage: string, headers: Record<string, string> | string[]): unknown;
  /** Writes one chunk of the body; false asks to wait for `drain` before the next. */
  write(chunk: Uint8Array): boolean;
  /** Ends the answer. */
  end(): unknown;
  /** Waits for the connection to close (the client left) or for the buffer to drain. */
  once(event: 'close' | 'drain', listener: () => void): unknown;
  /** Cuts the connection: an answer that cannot be finished is not passed off as complete. */
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
   * The largest request body the handler may receive, in bytes. A request
   * whose `Content-Length` is larger gets `413 Content Too Large` before any
   * of its body is read, and the handler is not called; a body of unknown
   * length (chunked) is counted as the handler reads it, and its reading
   * fails at the limit, the client getting a 413 unless the handler
   * answered otherwise. Either way the connection is then closed.
   * A body already parsed by middleware (`express.json()`) is not counted
   * again: that parser has its own limit.
   * @default 1_048_576 (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * Called when the handler throws or the answer cannot be sent; the client
   * gets a bare 500 (or a cut connection once the answer has started).
   * Not called for a client that goes away, nor for a body over `maxBodyBytes`.
   * @default () => {}, the error is dropped
   */
  onError?: (error: unknown) => void;
}
