import type { Backoff } from '../backoff/types.js';
import type { AdaptiveInterval } from '../cooperate/adaptive-interval.js';
import type { Environment } from '../env/environment.js';
import type { PollEvent } from './poll-events.js';

/** Options of {@link poll}. Validated when `poll` is called. */
export interface PollOptions<T = unknown> {
  /**
   * Terminal states, success **and** failure: `poll` resolves with the first
   * parsed body for which this returns true. Forgetting the failure state
   * polls a failed job forever.
   * @default () => false
   * @example isDone: (job) => job.status === 'done' || job.status === 'failed'
   */
  isDone?: (data: T) => boolean;
  /** Called with every parsed 2xx body (never on 304). */
  onUpdate?: (data: T) => void;
  /** Called with every {@link PollEvent}: requests, responses, waits and their reasons. */
  onEvent?: (event: PollEvent) => void;
  /** Aborts the request in flight and any wait; `poll` rejects with `signal.reason`. */
  signal?: AbortSignal;
  /**
   * Wait after a success or 304, ms; also the floor of every wait after a failure.
   *
   * Or a range the data sets the pace within, `{ min, max, factor, step }`:
   * each unchanged answer (304, or a body equal to the last) multiplies the
   * wait by `factor` up to `max`, a change returns it to `min`; a Retry-After
   * on a 2xx (the long-running-operation convention) sets the next wait
   * within `min`..`max`; each 429 multiplies the wait by `factor` and each
   * success takes `step` off again (AIMD), so a throttled fleet slows down
   * by itself.
   * @default 2000
   * @example interval: { min: 1000, max: 30000 } // factor 2, step 100
   */
  interval?: number | AdaptiveInterval;
  /**
   * Consecutive failures tolerated; one more rejects with `PollGaveUpError`.
   * Answers carrying a valid Retry-After do not count.
   * @default 8
   */
  maxAttempts?: number;
  /**
   * Extra wait after the n-th consecutive failure, on top of `interval`.
   * @default fullJitter({ base: 2000, cap: 30000 }), drawing from `env.random`
   */
  backoff?: Backoff;
  /**
   * Longest wait a Retry-After header may impose, ms.
   * @default 300000
   */
  maxRetryAfter?: number;
  /** Total deadline, ms; `poll` then rejects with a `TimeoutError` DOMException. @default none */
  timeout?: number;
  /** Deadline of each request, ms; a timed-out request is a failure. @default none */
  requestTimeout?: number;
  /**
   * Send nothing while the page is hidden; the first request after it
   * becomes visible goes out at once. A no-op where there is no `document`.
   * @default true
   */
  pauseWhenHidden?: boolean;
  /**
   * Send nothing while `navigator.onLine` is false; poll at once when the
   * `online` event fires, even during an interval wait. A no-op where there
   * is no `navigator.onLine`.
   * @default true
   */
  pauseWhenOffline?: boolean;
  /**
   * Send nothing while the window does not have the focus; poll at once
   * when it gets it back.
   * @default false
   */
  pauseWhenBlurred?: boolean;
  /**
   * Origin cooldown: when any pollite request in this realm gets a 429 or
   * 503 with Retry-After, every other one to the same origin waits until
   * then (plus a small spread) before sending. `false` opts this poller out:
   * it neither waits for nor announces cooldowns.
   * @default true
   */
  cooldown?: boolean;
  /**
   * Share one request loop: `true` among the polls of this realm with the
   * same URL, method, headers and body (a string or URLSearchParams; a
   * request whose body is a stream, Blob or FormData polls on its own); `'tabs'` also across tabs of the origin
   * (one tab elected with Web Locks polls and broadcasts every update over
   * BroadcastChannel; another visible tab takes over when it closes or is
   * hidden; like `true` where those APIs are missing). Each caller keeps
   * its own `isDone`, `onUpdate`, `onEvent`, `signal` and `timeout`; the loop
   * runs with the other options of the caller that started it, and stops
   * when its last caller is done or aborted. A caller joining a running
   * loop gets its latest body at once.
   * @default false
   */
  share?: boolean | 'tabs';
  /**
   * Send `If-None-Match` with the last ETag, so unchanged data costs an empty 304.
   * @default true
   */
  conditional?: boolean;
  /**
   * Reads a 2xx body. A throw becomes a `ParseError`, except a `TypeError`
   * from a body read that broke off (the connection dropped): that is a
   * network failure, retried like any other.
   * @default JSON, with 204 and an empty body (HEAD) read as `undefined`
   */
  parse?: (response: Response) => Promise<T>;
  /**
   * Merged into every request (method, headers, credentials...). Its
   * `signal` (or else a `Request` input's own signal, as with fetch) stops
   * polling exactly as `signal` does.
   */
  init?: RequestInit;
  /** The fetch to use. @default globalThis.fetch, looked up when `poll` is called */
  fetch?: typeof fetch;
  /**
   * Clock, timers, randomness and visibility. Defaults to the real ones; the
   * simulator and tests inject virtual ones.
   */
  env?: Partial<Environment>;
}
