import type { Backoff } from '../backoff/types.js';
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
   * @default 2000
   */
  interval?: number;
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
   * Send `If-None-Match` with the last ETag, so unchanged data costs an empty 304.
   * @default true
   */
  conditional?: boolean;
  /**
   * Reads a 2xx body. A throw becomes a `ParseError`.
   * @default JSON, with 204 read as `undefined`
   */
  parse?: (response: Response) => Promise<T>;
  /** Merged into every request (method, headers, credentials...). */
  init?: RequestInit;
  /** The fetch to use. @default globalThis.fetch, looked up when `poll` is called */
  fetch?: typeof fetch;
  /**
   * Clock, timers, randomness and visibility. Defaults to the real ones; the
   * simulator and tests inject virtual ones.
   */
  env?: Partial<Environment>;
}
