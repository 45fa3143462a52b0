import type { Backoff } from '../backoff/types.js';
import type { PollEvent } from '../engine/events.js';
import type { LoopHooks } from '../engine/hooks.js';
import type { Environment } from '../env/environment.js';
import type { RequestFactory } from '../http/request.js';

/** What a loop runs with: {@link "pollite"!PollOptions | PollOptions} without the caller's own callbacks, signal and deadline, every default filled in. */
export interface PollSettings {
  /** {@link "pollite"!PollOptions.interval | PollOptions.interval}: the wait after a 2xx or 304, ms. */
  interval: number;
  /** {@link "pollite"!PollOptions.retries | PollOptions.retries}: failures in a row that are tried again. */
  retries: number;
  /** {@link "pollite"!PollOptions.backoff | PollOptions.backoff}: the extra wait after the n-th failure in a row. */
  backoff: Backoff;
  /** {@link "pollite"!PollOptions.maxRetryAfter | PollOptions.maxRetryAfter}: the longest wait a Retry-After may impose, ms. */
  maxRetryAfter: number;
  /** {@link "pollite"!PollOptions.requestTimeout | PollOptions.requestTimeout}: the deadline of each request, ms, if any. */
  requestTimeout: number | undefined;
  /** {@link "pollite"!PollOptions.pauseWhenHidden | PollOptions.pauseWhenHidden}: nothing is sent while the page is hidden. */
  pauseWhenHidden: boolean;
  /** {@link "pollite"!PollOptions.pauseWhenOffline | PollOptions.pauseWhenOffline}: nothing is sent while the network is down. */
  pauseWhenOffline: boolean;
  /** {@link "pollite"!PollOptions.cooldown | PollOptions.cooldown}: this loop honours and announces origin cooldowns. */
  cooldown: boolean;
  /** {@link "pollite"!PollOptions.conditional | PollOptions.conditional}: requests carry `If-None-Match` (or `If-Modified-Since`). */
  conditional: boolean;
  /** {@link "pollite"!PollOptions.parse | PollOptions.parse}: reads a 2xx body. */
  parse: (response: Response) => Promise<unknown>;
  /** {@link "pollite"!PollOptions.init | PollOptions.init}: merged into every request. */
  init: RequestInit;
  /** {@link "pollite"!PollOptions.fetch | PollOptions.fetch}: the fetch the loop sends with. */
  fetch: typeof fetch;
  /** {@link "pollite"!PollOptions.use | PollOptions.use}: the opt-in features, in the order given. */
  use: readonly PollFeature[];
  /** {@link "pollite"!PollOptions.env | PollOptions.env}: clock, timers, randomness, visibility and online state, defaults filled in. */
  env: Environment;
}

/** What a feature knows of the loop it joins. */
export interface LoopContext {
  /** The request the loop sends (its URL, method, headers and body), made anew for each attempt. */
  request: RequestFactory;
  /** The options the loop runs with, defaults filled in. */
  settings: PollSettings;
  /** Where the loop started, when it continues an earlier run ({@link PollCall.from}). */
  from?: LoopStart | undefined;
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
  /** Where the loop starts when it continues an earlier run of the same poll (a checkpoint of `pollite/resume`); a fresh loop without. */
  from?: LoopStart;
}

/** Where a loop that continues an earlier run starts: what that run had when it stopped. */
export interface LoopStart {
  /** The validators of the last 2xx the caller has the body of (`ETag`, `Last-Modified`): the first request is conditional on them. */
  validators: {
    /** The `ETag` (sent as `If-None-Match`), or null. */
    etag: string | null;
    /** The `Last-Modified` (sent as `If-Modified-Since` when there is no ETag), or null. */
    lastModified: string | null;
  } | null;
  /** Failures in a row already counted. */
  failures: number;
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
