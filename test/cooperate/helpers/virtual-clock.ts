import type { Environment } from '../../../src/index.js';

/**
 * A manual clock for scheduling tests: timers run only when `advance` moves
 * time past them, in order; `delays` records every wait asked for.
 */
export function virtualClock(options: { start?: number; random?: number } = {}) {
  let now = options.start ?? 1_000_000;
  let nextId = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const delays: number[] = [];
  const env: Partial<Environment> = {
    now: () => now,
    random: () => options.random ?? 0.5,
    setTimeout: (callback, ms) => {
      delays.push(ms);
      timers.set(++nextId, { at: now + ms, callback });
      return nextId;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  /** Moves time forward `ms`, running every timer due on the way. */
  const advance = async (ms: number): Promise<void> => {
    const end = now + ms;
    for (;;) {
      let due: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of timers) if (entry[1].at <= end && (!due || entry[1].at < due[1].at)) due = entry;
      if (!due) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].callback();
      await flush();
    }
    now = end;
  };
  return { env, advance, delays, pending: () => timers.size, now: () => now };
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
export async function untilWithTimers(clock: ReturnType<typeof virtualClock>, condition: () => boolean, what = 'condition'): Promise<void> {
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
