import type { Environment } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';

/**
 * A virtual world for model-based tests: one clock shared by pollite's
 * timers (through the injected `env`) and the scripted server's latencies,
 * a page whose visibility the test flips (counting its subscribers). The
 * listeners on every AbortSignal and EventTarget are counted apart, by
 * test/helpers/event-listeners.ts. Time only moves when `step()` fires the
 * next timer, so a run of minutes of virtual time costs microseconds, and
 * the same real pollite code runs unchanged.
 */

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** pollite's virtual clock as the model-based tests use it: manual, starting at {@link T0}, recording every delay pollite asks for. */
export const virtualClock = (): VirtualClock => new VirtualClock({ start: T0, recordDelays: true });

/** A page whose visibility the test controls, counting subscribers. */
export class VirtualPage {
  hidden = false;
  #listeners = new Set<() => void>();
  /** Every (time, hidden) change, for checking waits that spanned a hidden spell. */
  readonly changes: Array<{ at: number; hidden: boolean }> = [];

  constructor(private readonly clock: VirtualClock) {}

  readonly source = {
    hidden: (): boolean => this.hidden,
    subscribe: (listener: () => void): (() => void) => {
      const entry = (): void => listener();
      this.#listeners.add(entry);
      return () => this.#listeners.delete(entry);
    },
  };

  set(hidden: boolean): void {
    if (hidden === this.hidden) return;
    this.hidden = hidden;
    this.changes.push({ at: this.clock.now(), hidden });
    for (const listener of [...this.#listeners]) listener();
  }

  listeners(): number {
    return this.#listeners.size;
  }

  /** True if the page was hidden at any moment in [from, to]. */
  hiddenDuring(from: number, to: number, hiddenAtStart: boolean): boolean {
    let hidden = hiddenAtStart;
    for (const change of this.changes) {
      if (change.at > to) break;
      if (change.at < from) {
        hidden = change.hidden;
        continue;
      }
      if (hidden || change.hidden) return true;
      hidden = change.hidden;
    }
    return hidden;
  }
}

/** The injected environment that runs pollite on `clock` and `page`. */
export function virtualEnv(clock: VirtualClock, page: VirtualPage, random: () => number): Partial<Environment> {
  return clock.env({ visibility: page.source, random });
}

/** Lets every pending promise reaction run (a macrotask turn drains the microtask queue). */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export type Settled<T> = { ok: true; value: T; at: number } | { ok: false; error: unknown; at: number };

/**
 * Runs `promise` to settlement in virtual time: drain microtasks, fire the
 * next timer, repeat. Stops early (returning `undefined`) when nothing is
 * scheduled and the promise is still pending: a pause that only the test can
 * end, or a hang. `maxSteps` guards against a runaway loop.
 */
export async function runVirtual<T>(clock: VirtualClock, promise: Promise<T>, maxSteps = 20_000): Promise<Settled<T> | undefined> {
  let settled: Settled<T> | undefined;
  promise.then(
    (value) => (settled = { ok: true, value, at: clock.now() }),
    (error: unknown) => (settled = { ok: false, error, at: clock.now() }),
  );
  for (let steps = 0; ; steps++) {
    await flush();
    if (settled) return settled;
    if (steps > maxSteps) throw new Error(`runaway: still running after ${maxSteps} timer steps`);
    if (!clock.step()) {
      await flush();
      return settled;
    }
  }
}
