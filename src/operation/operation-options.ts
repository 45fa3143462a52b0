import type { PollOptions } from '../poll/poll-options.js';
import type { PollEvent } from '../engine/events.js';
import type { OperationCheckpoint } from './operation-resume.js';

/** One answer of a long-running operation: the start's, or a status monitor's. */
export interface OperationAnswer<TStatus = unknown> {
  /** The HTTP status. */
  status: number;
  /** The answer's headers. */
  headers: Headers;
  /** The parsed body; `undefined` when it is empty (and, for a 202, when it is not JSON). */
  body: TStatus;
  /** The URL that answered, after any redirect. */
  url: string;
  /**
   * True when fetch followed a redirect to get here: to the result (a 303
   * See Other to another path), or to the monitor itself moved (a trailing
   * slash added, http to https: the same path).
   */
  redirected: boolean;
}

/** Where an operation stands, by the conventions or by `isDone` and `isFailed`. */
export type OperationState = 'running' | 'succeeded' | 'failed' | 'canceled';

/** The options of `poll` that polling an operation uses as they are. */
type PassedPollOptions =
  | 'interval'
  | 'retries'
  | 'backoff'
  | 'maxRetryAfter'
  | 'requestTimeout'
  | 'pauseWhenHidden'
  | 'pauseWhenOffline'
  | 'cooldown'
  | 'conditional'
  | 'fetch'
  | 'use'
  | 'env';

/**
 * Options of {@link pollOperation}, passed as `init.operation`. Validated
 * before the start request is sent. The options it shares with `poll`
 * (`interval`, `retries`, `backoff`, `cooldown`, `use`...) apply to the
 * polls of the status monitor exactly as they do in `poll`.
 */
export interface OperationOptions<TStatus = unknown> extends Pick<PollOptions<TStatus>, PassedPollOptions> {
  /**
   * Sends the start request with an `Idempotency-Key` header, the same on
   * every attempt, so that a POST or PATCH start is retried after a network
   * failure or a retryable status (408, 429, 5xx): `true` generates a
   * random UUID (or keeps the header you set), a string is used as is.
   * Without one, a POST or PATCH start is sent once, as `fetchWithRetry`
   * sends writes.
   * @default none: a POST or PATCH start is sent once
   * @example idempotencyKey: true
   */
  idempotencyKey?: boolean | string;
  /**
   * Finds the status monitor in the start's answer when no header names it
   * (Google's operations name it in the body): its URL, resolved against
   * the URL that answered; `undefined` or `null` falls back to the headers.
   * @default the `Operation-Location` header, else `Azure-AsyncOperation`, else (on a 202) `Location`
   * @example operationUrl: ({ body }) => `https://example.googleapis.com/v1/${(body as { name: string }).name}`
   */
  operationUrl?: (start: OperationAnswer) => string | URL | null | undefined;
  /**
   * Overrides the conventions on when the operation is over: called with
   * every parsed 2xx body of the monitor and the answer it came in; true
   * ends polling. Whether it failed is then `isFailed`'s to say. Needed
   * by a monitor that answers 200 while it runs with a field of its own
   * (`state: 'running'`): by the conventions such a 200 is the end.
   * @default the conventions: a redirect to the result (another path than the monitor's), a `status` of Succeeded, Failed or Canceled (Azure, any case), `done: true` (Google), any 2xx but 202 when the body says nothing
   * @example isDone: (job) => job.state === 'COMPLETE' || job.state === 'ERROR'
   */
  isDone?: (status: TStatus, answer: OperationAnswer<TStatus>) => boolean | Promise<boolean>;
  /**
   * Whether an operation that is over failed: true rejects with an
   * `OperationFailedError` whose `status` is `'failed'`. A returned
   * promise is awaited.
   * @default the conventions: a `status` of Failed or Canceled (Azure, any case), `done: true` with an `error` (Google)
   * @example isFailed: (job) => job.state === 'ERROR'
   */
  isFailed?: (status: TStatus, answer: OperationAnswer<TStatus>) => boolean | Promise<boolean>;
  /**
   * Fetches the result once the operation succeeded: from the final body's
   * `resourceLocation`, else the final answer's `Location`, else the
   * start's `Location` (when the monitor came from `Operation-Location` or
   * `Azure-AsyncOperation`), else the start URL for a PUT or PATCH polled
   * through `Operation-Location` or `Azure-AsyncOperation` (Azure's rule). Without
   * any of these the result is Google's `response`, or the final body.
   * `false` resolves with the final body of the monitor, fetching nothing.
   * @default true
   */
  fetchResult?: boolean;
  /**
   * Headers of the polls and of the result's request, in place of the
   * start's. Like the start's, they go in full only to the start URL's
   * origin and to `trustedOrigins`; a monitor or result on any other
   * origin gets only `Accept`, `Accept-Language`, `Content-Language` and
   * `User-Agent` of them (see `trustedOrigins`).
   * @default the start request's headers, less those of its body (`Content-Type`, `Content-Length`, `Content-Encoding`) and its `Idempotency-Key`
   */
  headers?: HeadersInit;
  /**
   * Origins other than the start URL's that the server may send pollite to
   * with the caller's credentials. A monitor or result URL on an origin
   * neither the start URL nor this names gets none of them: no
   * `Authorization`, `Cookie`, `Proxy-Authorization` or custom header
   * (only `Accept`, `Accept-Language`, `Content-Language` and
   * `User-Agent`), and `credentials: 'include'` becomes `'same-origin'`.
   * Each entry is an origin exactly as `new URL(url).origin` writes it:
   * scheme, host and a port other than the default, nothing more.
   * @default none: only the start URL's origin
   * @example trustedOrigins: ['https://ops.example.com']
   */
  trustedOrigins?: readonly string[];
  /**
   * Total deadline of the whole operation, ms (> 0): the start request, the
   * polls and the result's request. Past it `pollOperation` rejects with a
   * `TimeoutError` DOMException.
   * @default none
   */
  timeout?: number;
  /**
   * Asks the server to hold requests rather than be polled (RFC 7240), ms,
   * a whole number of seconds. The start request carries `Prefer:
   * respond-async, wait=N` (N = `preferWait` / 1000: answer at once if the
   * operation is over within N s, else 202), each poll `Prefer: wait=N`
   * (hold it until the operation changes, N s at most), to the monitor's
   * origin whatever it is: it names no one, unlike the caller's headers.
   * Where an answer carries `Preference-Applied: wait`, the time the server
   * held the request counts toward the wait after it: the next poll goes
   * once `interval` has passed since that request was sent (at once after a
   * full hold), never sooner than a Retry-After or any other floor. An
   * answer without it is paced as without this option, so a server that
   * ignores the preference is polled every `interval` as before.
   * `requestTimeout` is extended by it for the polls; `timeout` is not.
   * Off by default: `Prefer` is not CORS-safelisted, so in a browser a
   * cross-origin request carrying it needs a preflight the server must
   * allow (see `preferWait` for `poll`).
   * @default none: no `Prefer` is sent
   * @example preferWait: 10_000
   */
  preferWait?: number;
  /**
   * Reads each 2xx body: the start's, each status and the result. A throw
   * becomes a `ParseError`.
   * @default JSON, with an empty body read as `undefined` (and, for a 202, a body that is not JSON)
   */
  parse?: (response: Response) => Promise<unknown>;
  /** Called with every parsed 2xx body of the monitor (never on 304). A returned promise is awaited. */
  onUpdate?: (status: TStatus) => unknown;
  /** Called with every {@link PollEvent} of the polls, including the `wait` before the first one. */
  onEvent?: (event: PollEvent) => void;
  /**
   * Keeps the operation's progress in a store, so that a run after a
   * reload, a crash or a deploy continues the same operation: at its
   * monitor, with no second start request (a start whose answer was lost is
   * sent again only with its saved `idempotencyKey`, else the run is
   * refused), no sooner than the wait the server asked for, with the
   * failures counted and the deadline kept. See `checkpoint()` of
   * `pollite/resume`.
   * @default none: nothing is saved
   * @example resume: checkpoint({ store: webStorage(localStorage), key: `report:${userId}` })
   */
  resume?: OperationCheckpoint;
}

/**
 * The second argument of {@link pollOperation}: the start request's, as
 * for `fetch` (`method`, `body`, `headers`, `signal`...), plus
 * `operation`. `signal` stops everything: the start, the polls, the result.
 */
export type PollOperationInit<TStatus = unknown> = RequestInit & {
  /** How to follow the operation: {@link OperationOptions}. */
  operation?: OperationOptions<TStatus>;
};
