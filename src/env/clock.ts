/**
 * Time and chance, as pollite takes them from the outside world. Every
 * member has a default bound late to the global (so fake timers and spies
 * work); inject replacements to run pollite in virtual time, as the tests
 * and the simulator do (see `VirtualClock` in `pollite/testing`).
 */
export interface Clock {
  /** Epoch milliseconds. @default () => Date.now() */
  now(): number;
  /** @default (callback, ms) => setTimeout(callback, ms) */
  setTimeout(callback: () => void, ms: number): unknown;
  /** @default (handle) => clearTimeout(handle) */
  clearTimeout(handle: unknown): void;
  /** Randomness in [0, 1): backoff jitter and the spread above Retry-After. @default () => Math.random() */
  random(): number;
}

/** The real clock. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: () => Math.random(),
};

/** Fills the gaps of a partial clock with the real one (`retry` and `fetchWithRetry` need no more). */
export const resolveClock = (env?: Partial<Clock>): Clock => (env ? { ...realClock, ...env } : realClock);
