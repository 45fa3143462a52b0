import type { Environment, VisibilitySource } from '../index.js';
import type { Check } from '../options/check.js';

/** How a {@link VirtualClock} is made. Every option may be left out. */
export interface VirtualClockOptions {
  /**
   * The virtual time the clock starts at, epoch ms: what `now()` returns
   * before time moves.
   * @default 0
   * @example new VirtualClock({ start: Date.UTC(2026, 0, 1) })
   */
  start?: number;
  /**
   * A grid for due times, ms: each timer is due at the next multiple of
   * `resolution` at or after the time asked for (real timers fire no
   * earlier than asked; a grid lets many timers share one instant, which
   * makes `run` cheaper). `0` keeps exact times.
   * @default 0
   * @example new VirtualClock({ resolution: 1 }) // setTimeout(cb, 20.2) is due at 21
   */
  resolution?: number;
  /**
   * What `random()`, and so the `env()`'s randomness, returns: a number in
   * [0, 1] for a fixed draw, or a function. The default is the middle of
   * every jitter range, so tests see the same delays on every run.
   * @default 0.5
   * @example new VirtualClock({ random: 0 }) // no spread above Retry-After, no backoff jitter
   */
  random?: number | (() => number);
  /**
   * Records in {@link VirtualClock.delays} every delay the code under test
   * asks the `env()`'s `setTimeout` for. Off by default, so a simulation of
   * millions of timers keeps no list of them.
   * @default false
   * @example
   * const clock = new VirtualClock({ recordDelays: true, auto: true });
   * await poll(url, { interval: 1000, env: clock.env() });
   * clock.delays; // [1000, 1000]
   */
  recordDelays?: boolean;
  /**
   * Runs by itself: whenever timers are pending, a real macrotask (after
   * every promise continuation, and in Node after ready I/O) fires the
   * earliest one, moving `now` to its due time. Every wait therefore ends
   * "at once" in real time, in the order of virtual time: a test over a real
   * server asserts the exact waits without waiting them out. Without it,
   * time moves only through `step`, `advance` and `run`. The hops are the
   * runtime's own (setImmediate, else a MessageChannel message): do not
   * combine with fake timers that replace them.
   * @default false
   * @example
   * const clock = new VirtualClock({ auto: true, recordDelays: true });
   * await fetchWithRetry(url, { retry: { env: clock.env() } }); // a Retry-After: 120 costs no real time
   */
  auto?: boolean;
}

/** The environment a {@link VirtualClock} gives: its time, timers and randomness, and a page that is always visible; `online` is pollite's default unless given. */
export type VirtualEnvironment = Omit<Environment, 'online'> & Partial<Pick<Environment, 'online'>>;

/** Which timers {@link VirtualClock.pending} counts: all of them, or only those armed through `env()`. */
export type TimerSet = 'all' | 'env';

const unsubscribe = (): void => undefined;

export const alwaysVisible: VisibilitySource = { hidden: () => false, subscribe: () => unsubscribe };

export const optionChecks: { readonly [K in keyof VirtualClockOptions]-?: Check } = {
  start: [(v) => typeof v === 'number' && Number.isFinite(v), 'a finite number'],
  resolution: [(v) => typeof v === 'number' && v >= 0 && v < Infinity, 'a finite number >= 0'],
  random: [(v) => typeof v === 'function' || (typeof v === 'number' && v >= 0 && v <= 1), 'a function or a number from 0 to 1'],
  recordDelays: [(v) => typeof v === 'boolean', 'a boolean'],
  auto: [(v) => typeof v === 'boolean', 'a boolean'],
};
