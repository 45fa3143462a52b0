import type { PollEvent } from '../engine/events.js';
import type { PollFeature } from '../poll/feature.js';
import { oneRun } from './one-run.js';
import { applyPollEvent, pollIdle, type PollSnapshot } from './poll-snapshot.js';
import type { RunState } from './run-state.js';
import { createStore } from './store.js';
import { tryNow } from './try-now.js';

/** What a loop state hands the call it runs: the run's signal, the feature that ends a wait ("Try now"), and its own callbacks. */
export interface LoopWiring {
  signal: AbortSignal;
  /** Give it in the loop's `use`: `retryNow()` ends the wait in progress through it. */
  feature: PollFeature;
  /** Shows a body of the loop, then calls the caller's latest `onUpdate`. */
  onUpdate(body: unknown): unknown;
  /** Folds an event into the snapshot, then calls the caller's latest `onEvent`. */
  onEvent(event: PollEvent): void;
}

/** How a loop state reads its options (whatever their shape) and runs one call of them. */
export interface LoopSpec<TOptions, TData> {
  /** The field a body `onUpdate` got is shown in: a poll's `data`, an operation's `progress` (which the snapshot then always has). */
  field: 'data' | 'progress';
  /** `retries + 1` of the options, or of the default when they hold no valid count. */
  limit(options: TOptions): number;
  /** Where the options hold the caller's `signal` (it stops the state as `stop()` does), `onUpdate` and `onEvent`: the options themselves, or their `operation`. */
  own(options: TOptions): { signal?: AbortSignal | null; onUpdate?: (body: never) => unknown; onEvent?: (event: PollEvent) => void };
  /** Runs the call: `poll`, or `pollOperation`. */
  run(key: string, options: TOptions, wiring: LoopWiring): Promise<TData>;
}

/**
 * A loop (a poll, an operation's polls) as a UI sees it: a snapshot to
 * subscribe to and the buttons, whatever call `spec` runs. Every decision is
 * the call's; this only maps its life to UI state. Nothing is sent before
 * `start()`. See {@link createPollState}.
 */
export function createLoopState<TOptions, TData, TSnapshot extends PollSnapshot<TData>>(
  key: string | null,
  read: () => TOptions,
  spec: LoopSpec<TOptions, TData>,
): RunState<TSnapshot> {
  const store = createStore({ ...pollIdle(undefined, spec.limit(read())), ...(spec.field === 'progress' && { progress: undefined }) } as TSnapshot);
  const run = oneRun();
  const button = tryNow();
  const wake = { ...button.wake, every: true };
  const feature: PollFeature = { attach: () => ({ wake }) };

  const toIdle = (): void => {
    const now = store.getSnapshot();
    if (now.status === 'polling') store.set({ ...now, ...pollIdle(now.data, now.limit) });
  };
  const stop = (): void => {
    run.end();
    toIdle();
  };

  const launch = (): void => {
    const given = read();
    const callerSignal = spec.own(given).signal;
    if (key === null || callerSignal?.aborted) return stop();
    const limit = spec.limit(given);
    const over = { error: undefined, limit, nextAttemptAt: undefined, paused: false, paced: false } as const;
    // An operation's result is its run's own: a new run shows none until it ends (its progress is kept, as a poll's body is).
    store.set({ ...store.getSnapshot(), ...(spec.field === 'progress' && { data: undefined }), status: 'polling', attempt: 1, ...over });
    run.begin((signal, live) => {
      // The caller's signal ends polling as stop() does; added only once a run really starts, removed when it ends.
      const onCallerAbort = (): void => void (live() && stop());
      if (callerSignal?.aborted) return onCallerAbort();
      callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
      let sent = 0;
      const settle = (next: (now: TSnapshot) => TSnapshot): void => {
        if (!live()) return;
        run.end();
        store.set(next(store.getSnapshot()));
      };
      const wiring: LoopWiring = {
        signal,
        feature,
        onUpdate: (body) => {
          if (!live()) return;
          const now = store.getSnapshot();
          if (now.status === 'polling') store.set({ ...now, [spec.field]: body });
          return spec.own(read()).onUpdate?.(body as never);
        },
        onEvent: (event) => {
          if (!live()) return;
          if (event.type === 'request') sent = event.attempt;
          store.set(applyPollEvent(store.getSnapshot(), event) as TSnapshot);
          spec.own(read()).onEvent?.(event);
        },
      };
      // A throw of the run itself is an error snapshot too, as the call's own TypeErrors are.
      new Promise<TData>((resolve) => resolve(spec.run(key, given, wiring)))
        .then(
          (data) => settle((now) => ({ ...now, status: 'done', data, attempt: sent, ...over })),
          (error: unknown) => settle((now) => ({ ...now, status: 'error', attempt: sent, ...over, error })),
        )
        .finally(() => callerSignal?.removeEventListener('abort', onCallerAbort));
    });
  };

  return {
    subscribe: store.subscribe,
    getSnapshot: store.getSnapshot,
    start: () => void (run.running() || launch()),
    stop,
    retry: launch,
    retryNow: button.press,
  };
}

/** `use` with `feature` last; a `use` that is no list is passed on as it is, for the call to refuse by name. */
export const withFeature = (use: readonly PollFeature[] | undefined, feature: PollFeature): PollFeature[] | undefined =>
  use === undefined ? [feature] : Array.isArray(use) ? [...use, feature] : (use as PollFeature[]);
