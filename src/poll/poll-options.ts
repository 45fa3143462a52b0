import type { Backoff } from '../backoff/types.js';
import type { Environment } from '../env/environment.js';
import type { PollFeature } from './feature.js';
import type { PollEvent } from '../engine/events.js';

/** Options of {@link poll}. Validated when `poll` is called. */
export interface PollOptions<T = unknown> {
  /**
   * Terminal states, success **and** failure: `poll` resolves with the first
   * parsed body for which this returns (or resolves to) true. Forgetting the
   * failure state polls a failed job forever.
   * @default () => false
   * @example isDone: (job) => job.status === 'done' || job.status === 'failed'
   */
  isDone?: (data: T) => boolean | Promise<boolean>;
  /**
   * Called with every parsed 2xx body (never on 304). A returned promise is
   * awaited before the next wait starts; its rejection rejects `poll`.
   */
  onUpdate?: (data: T) => unknown;
  /** Called with every {@link PollEvent}: requests, responses, waits and their reasons. */
  onEvent?: (event: PollEvent) => void;
  /** Aborts the request in flight and any wait; `poll` rejects with `signal.reason`. */
  signal?: AbortSignal;
  /**
   * Wait after a 2xx or 304, ms; also the floor of every wait after a
   * failure. Under throttling (429s) the wait grows beyond it and recovers
   * with each success. A pace set by the data is the `paceByData()` feature
   * of `pollite/cooperate`.
   * @default 2000
   */
  interval?: number;
  /**
   * Failures in a row that are tried again; the next one rejects with
   * `PollGaveUpError`. So at most `retries + 1` attempts in a row fail.
   * Answers carrying a Retry-After of a second or more do not count: the
   * server is pacing, not failing.
   * @default 8
   */
  retries?: number;
  /**
   * Extra wait after the n-th failure in a row, on top of `interval`.
   * `poll` passes it the interval as a second argument (the throttled one
   * while the server throttles).
   * @default relative to the interval: after the n-th failure in a row the whole wait is `max(interval, 1000)` × 1.5 to 2.25 (a random draw from `env.random`) × 2^(n−1), 30 s at most, and never below `interval`
   */
  backoff?: Backoff;
  /**
   * Longest wait a Retry-After header may impose, ms.
   * @default 300000
   */
  maxRetryAfter?: number;
  /**
   * Total deadline, ms (> 0), met, not guessed: a wait that would cross it
   * is shortened for one last try (never below a wait the server asked
   * for), and when it is due `poll` rejects with a `TimeoutError`
   * DOMException (its `cause`: the last failure, if any).
   * @default none
   */
  timeout?: number;
  /** Deadline of each request, ms (> 0); a timed-out request is a failure. @default none */
  requestTimeout?: number;
  /**
   * Send nothing while the page is hidden; the first request after it
   * becomes visible goes out at once. A no-op where there is no `document`
   * when the poll starts: nothing is checked or listened to then, at no cost.
   * @default true
   */
  pauseWhenHidden?: boolean;
  /**
   * Send nothing while `navigator.onLine` is false; poll at once when the
   * `online` event fires, even during an interval wait. A no-op where there
   * is no `navigator.onLine`, and where no window sends `online` and
   * `offline` events when the poll starts (Node): with nothing to wake it, a
   * pause could never end, so nothing is checked or listened to, at no cost.
   * @default true
   */
  pauseWhenOffline?: boolean;
  /**
   * Cooldown: when any pollite request in this realm gets a 503 with
   * Retry-After, every other one to the same origin waits until then (plus
   * a small spread); a 429 does the same for its route (origin and path).
   * `false` opts this poller out: it neither waits for nor announces cooldowns.
   * @default true
   */
  cooldown?: boolean;
  /**
   * Send `If-None-Match` with the last ETag (or, when the server sends none,
   * `If-Modified-Since` with the last `Last-Modified`), so unchanged data
   * costs an empty 304.
   * @default true
   */
  conditional?: boolean;
  /**
   * Reads a 2xx body. A throw becomes a `ParseError`, except a body read
   * that broke off (the connection dropped): that is a network failure,
   * retried like any other.
   * @default JSON, with 204 and an empty body (HEAD) read as `undefined`
   */
  parse?: (response: Response) => Promise<T>;
  /**
   * Merged into every request (method, headers, credentials...). Its
   * `signal` (or else a `Request` input's own signal, as with fetch) stops
   * polling exactly as `signal` does. A `ReadableStream` body is refused:
   * a poll sends its request many times. In Node, a conditional request
   * (`conditional`) is made with `cache: 'no-cache'`, whatever `init.cache`
   * says, so that Node's fetch asks for `Cache-Control: max-age=0` rather
   * than `no-cache` (which Express and Koa never answer with a 304); Node's
   * fetch has no HTTP cache, so its cache mode chooses nothing else.
   */
  init?: RequestInit;
  /** The fetch to use. @default globalThis.fetch, looked up when `poll` is called */
  fetch?: typeof fetch;
  /**
   * Opt-in features, such as those of `pollite/cooperate`: shared loops,
   * one tab for all, a pace set by the data, the blur pause.
   * @example use: [share(), pauseWhenBlurred()]
   */
  use?: readonly PollFeature[];
  /**
   * Clock, timers, randomness, visibility and connection state. Defaults
   * to the real ones; the simulator and tests inject virtual ones.
   */
  env?: Partial<Environment>;
}
