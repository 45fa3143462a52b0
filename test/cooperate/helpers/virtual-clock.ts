import { VirtualClock } from '../../../src/testing/index.js';

/**
 * pollite's virtual clock as the cooperation tests use it: manual (timers
 * run only when `advance` moves time past them, in order), starting at
 * 1,000,000 ms, recording every wait asked for in `delays`.
 */
export function virtualClock(options: { start?: number; random?: number } = {}): VirtualClock {
  return new VirtualClock({ start: options.start ?? 1_000_000, random: options.random ?? 0.5, recordDelays: true });
}

/** Lets promise callbacks and pending I/O callbacks run. */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Waits (real time, up to 3 s) until `condition` holds; fails the test otherwise. */
export async function until(condition: () => boolean, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 3000) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Like `until`, running the clock's zero-delay timers (the yields of a tab handover) as it waits. */
export async function untilWithTimers(clock: VirtualClock, condition: () => boolean, what = 'condition'): Promise<void> {
  await until(() => {
    if (!condition()) void clock.advance(0);
    return condition();
  }, what);
}

/** A settable source for `env.visibility`, `env.online` or `pauseWhenBlurred`'s focus that counts its listeners. */
export function switchable(initiallyOn = false) {
  let on = initiallyOn;
  const listeners = new Set<() => void>();
  return {
    get on() {
      return on;
    },
    set(value: boolean): void {
      on = value;
      for (const listener of [...listeners]) listener();
    },
    listeners: () => listeners.size,
    is: () => on,
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
