import type { FetchSnapshot } from './fetch-snapshot.js';
import type { PollSnapshot } from './poll-snapshot.js';
import type { Subscribable } from './store.js';

/** A poll or a fetch as a UI drives it: its snapshot, and the buttons. */
export interface RunState<TSnapshot> extends Subscribable<TSnapshot> {
  /** Starts, unless it is already under way (or has no url); the first request leaves a microtask later. */
  start(): void;
  /** Aborts the request in flight and any wait; a running state becomes `idle`, keeping `data`. */
  stop(): void;
  /** Starts again from attempt 1, keeping `data`: after an error, a stop, or at any time ("Retry"). */
  retry(): void;
  /** Ends the wait in progress, a Retry-After's and a cooldown's included, so the next attempt goes out at once ("Try now"); does nothing while a request is in flight, paused or stopped. */
  retryNow(): void;
}

/** A poll as a UI drives it: see {@link createPollState}. */
export type PollState<TData> = RunState<PollSnapshot<TData>>;

/** A fetch with retries as a UI drives it: see {@link createFetchState}. */
export type FetchState<TData> = RunState<FetchSnapshot<TData>>;

/** What every framework adapter's poll and fetch return besides the snapshot: the countdown and the buttons. */
export interface ViewControls {
  /** Whole seconds until the next attempt while `nextAttemptAt` is set, else `undefined` (see {@link createCountdown}); while `paced`, a wait the server asked for, not a failure's. */
  readonly secondsLeft: number | undefined;
  /** {@link RunState.retry}. */
  retry(): void;
  /** {@link RunState.retryNow}. */
  retryNow(): void;
  /** {@link RunState.stop}. */
  stop(): void;
}

/** What `usePoll` (React, Vue) and `createPoll` (Svelte, Solid) return: the same shape in every framework. */
export type PollView<TData> = PollSnapshot<TData> & ViewControls;

/** What `useFetchWithRetry` (React, Vue) and `createFetchWithRetry` (Svelte, Solid) return: the same shape in every framework. */
export type FetchView<TData> = FetchSnapshot<TData> & ViewControls;
