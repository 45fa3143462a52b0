import type { Backoff } from '../backoff/types.js';
import type { Environment } from '../env/environment.js';
import type { Wake } from '../env/wait.js';
import type { RequestFactory } from '../http/request.js';
import type { HeaderReader } from '../http/parse-retry-after.js';
import type { PollEvent } from './poll-events.js';

/** What a loop runs with: {@link PollOptions} without the caller's own callbacks, signal and deadline, every default filled in. */
export interface PollSettings {
  /** {@link PollOptions.interval}: the wait after a 2xx or 304, ms. */
  interval: number;
  /** {@link PollOptions.retries}: failures in a row that are tried again. */
  retries: number;
  /** {@link PollOptions.backoff}: the extra wait after the n-th failure in a row. */
  backoff: Backoff;
  /** {@link PollOptions.maxRetryAfter}: the longest wait a Retry-After may impose, ms. */
  maxRetryAfter: number;
  /** {@link PollOptions.requestTimeout}: the deadline of each request, ms, if any. */
  requestTimeout: number | undefined;
  /** {@link PollOptions.pauseWhenHidden}: nothing is sent while the page is hidden. */
  pauseWhenHidden: boolean;
  /** {@link PollOptions.pauseWhenOffline}: nothing is sent while the network is down. */
  pauseWhenOffline: boolean;
  /** {@link PollOptions.cooldown}: this loop honours and announces origin cooldowns. */
  cooldown: boolean;
  /** {@link PollOptions.conditional}: requests carry `If-None-Match` (or `If-Modified-Since`). */
  conditional: boolean;
  /** {@link PollOptions.parse}: reads a 2xx body. */
  parse: (response: Response) => Promise<unknown>;
  /** {@link PollOptions.init}: merged into every request. */
  init: RequestInit;
  /** {@link PollOptions.fetch}: the fetch the loop sends with. */
  fetch: typeof fetch;
  /** {@link PollOptions.use}: the opt-in features, in the order given. */
  use: readonly PollFeature[];
  /** {@link PollOptions.env}: clock, timers, randomness, visibility and online state, defaults filled in. */
  env: Environment;
}

/** What the loop tells its features about each answer. */
export interface PollAnswer {
  /** The HTTP status; 0 for a network failure or a timed-out request. */
  status: number;
  /** The answer's headers; empty for a network failure. */
  headers: HeaderReader;
  /** The parsed body of a 2xx (`undefined` for a 304 and for failures). */
  data?: unknown;
  /** When it arrived, epoch ms. */
  at: number;
}

/** A reason a feature gives the loop to send nothing yet. */
export interface Hold {
  /** Emitted when the hold begins (a `pause`, a `cooldown`, a `wait`). */
  event: PollEvent;
  /** How long to hold, ms; `Infinity` holds until `wake` is ready (a pause). */
  ms: number;
  /** Ends the hold early. */
  wake?: Wake;
}

/**
 * One feature's part in one request loop, at the loop's named points. Every
 * member is optional; the loop asks its features in the order given.
 */
export interface LoopHooks {
  /**
   * Before each request: a reason to send nothing yet, or nothing. Asked
   * again, of every feature, after each hold ends, until none holds. May
   * be async (a store shared by processes).
   */
  hold?(): Hold | undefined | Promise<Hold | undefined>;
  /** Told every answer (2xx, 304, failure) before the next wait is chosen. */
  answer?(answer: PollAnswer): void;
  /** The wait after a 2xx or 304: given the wait chosen so far, the one to use, ms. */
  pace?(wait: number, answer: PollAnswer): number;
  /** The loop starts a wait (interval, retry or hold): its next request is due at `at`, epoch ms. */
  waiting?(at: number): void;
  /**
   * Ends interval waits early (the page becomes visible); with `network`,
   * also the wait after a network failure (the network came back); with
   * `every`, every wait, a Retry-After's and a cooldown's included (a "try
   * now" button: the user asked).
   */
  wake?: Wake<string> & {
    /** Also ends the wait after a network failure. */
    network?: boolean;
    /** Ends every wait, a Retry-After's and a cooldown's included. */
    every?: boolean;
  };
}

/** What a feature knows of the loop it joins. */
export interface LoopContext {
  /** The request the loop sends (its URL, method, headers and body), made anew for each attempt. */
  request: RequestFactory;
  /** The options the loop runs with, defaults filled in. */
  settings: PollSettings;
}

/** The sink of one loop's results: a caller of `poll`, or every caller of a shared loop. */
export interface PollSink<T> {
  /** A parsed 2xx body; resolves true when polling is done (the body is terminal). */
  update(data: T): boolean | Promise<boolean>;
  /** Every event of the loop. */
  event(event: PollEvent): void;
}

/** One poll as the loop runs it: what to request, where the results go, and the features still to join. */
export interface PollCall<T> {
  /** The request to send (its URL, method, headers and body), made anew for each attempt; a sharing feature keys loops by it. */
  request: RequestFactory;
  /** The options the loop runs with; its features are `settings.use`. */
  settings: PollSettings;
  /** Where the parsed bodies and the events go: the caller's `onUpdate`, `isDone` and `onEvent`, or a shared loop's fan-out. */
  sink: PollSink<T>;
  /** Stops the loop; it then rejects with the reason. */
  signal: AbortSignal | undefined;
  /** Total deadline, ms. */
  timeout: number | undefined;
}

/** Runs the loop of a {@link PollCall}: what `poll` hands a feature's `run` as `next`. */
export type PollRunner = <T>(call: PollCall<T>) => Promise<T>;

/**
 * An opt-in capability of `poll`, passed in `use`: `poll(url, { use:
 * [pauseWhenBlurred(), share()] })`. A feature either joins each loop
 * (`attach`: holds, pace, answers, wakes) or runs the loop on behalf of
 * several callers (`run`: sharing), or both. A feature that is not
 * imported costs nothing.
 */
export interface PollFeature {
  /** Joins one loop; `undefined` when it has nothing to do there. */
  attach?(loop: LoopContext): LoopHooks | undefined;
  /**
   * Runs `call`: by calling `next(call)` (perhaps with a changed call), or by
   * joining a loop another caller started. Settles as `poll` does, for this caller.
   */
  run?<T>(call: PollCall<T>, next: PollRunner): Promise<T>;
}
