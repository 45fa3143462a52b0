import { type Environment, type VisibilitySource } from '../index.js';
import { EventQueue, type ScheduledEvent } from './event-queue.js';

/** What the simulator provides of an {@link Environment}; pollite's defaults fill the rest (never offline, never blurred outside a browser). */
export type SimulatedEnvironment = Pick<Environment, 'now' | 'setTimeout' | 'clearTimeout' | 'random' | 'visibility'>;

const alwaysVisible: VisibilitySource = { hidden: () => false, subscribe: () => () => undefined };

/**
 * Lets every promise continuation queued so far run to completion: a
 * macrotask only comes after the microtask queue is empty, however long its
 * chains. A MessageChannel message is the cheapest macrotask in Node (about
 * 1 us against 3 us for setImmediate); setTimeout(0) is the fallback.
 */
function microtaskDrainer(): { drain: () => Promise<void>; close: () => void } {
  if (typeof MessageChannel !== 'function') {
    return { drain: () => new Promise((resolve) => setTimeout(resolve, 0)), close: () => undefined };
  }
  const channel = new MessageChannel();
  let wake: () => void = () => undefined;
  channel.port1.onmessage = () => wake();
  return {
    drain: () =>
      new Promise((resolve) => {
        wake = resolve;
        channel.port2.postMessage(null);
      }),
    close: () => channel.port1.close(),
  };
}

/**
 * A discrete-event clock: `setTimeout` puts a callback on a priority queue
 * at a virtual time, and `run` jumps from one due instant to the next,
 * running every callback due then and letting the promise continuations
 * they trigger finish before time moves on. Real library code given
 * {@link VirtualTime.env} therefore behaves exactly as with real timers,
 * only without waiting.
 *
 * Due times are rounded up to `resolution` ms (real timers fire no earlier
 * than asked, and a grid lets many callbacks share one microtask drain).
 */
export class VirtualTime {
  readonly resolution: number;
  #queue = new EventQueue();
  #now = 0;
  #drains = 0;

  /** @param resolution grid of due times in ms; 0 keeps exact times. @default 1 */
  constructor(resolution = 1) {
    this.resolution = resolution;
  }

  /** Virtual ms since the start. */
  now(): number {
    return this.#now;
  }

  /** How many times `run` waited for microtasks: a cost figure for benchmarks. */
  get drains(): number {
    return this.#drains;
  }

  /** Calls `run` at virtual time `time` (never earlier than now). */
  at(time: number, run: () => void): ScheduledEvent {
    const r = this.resolution;
    const due = Math.max(this.#now, r > 0 ? Math.ceil(time / r - 1e-9) * r : time);
    return this.#queue.push(due, run);
  }

  setTimeout(run: () => void, ms: number): ScheduledEvent {
    return this.at(this.#now + Math.max(0, ms), run);
  }

  clearTimeout(event: unknown): void {
    if (event && typeof event === 'object' && 'cancelled' in event) (event as ScheduledEvent).cancelled = true;
  }

  /**
   * Runs every event due up to `until`, then leaves the clock at `until`.
   * With `drain` false, callbacks must not rely on promises (the fast path
   * for purely callback-driven models such as the AWS study).
   */
  async run(until: number, drain = true): Promise<void> {
    const queue = this.#queue;
    const drainer = drain ? microtaskDrainer() : undefined;
    try {
      for (;;) {
        const next = queue.peek();
        if (next === undefined || next.time > until) break;
        const time = next.time;
        this.#now = time;
        do {
          const event = queue.pop()!;
          if (!event.cancelled) event.run();
        } while (queue.peek()?.time === time);
        if (drainer) {
          this.#drains += 1;
          await drainer.drain();
        }
      }
    } finally {
      drainer?.close();
    }
    this.#now = Math.max(this.#now, until);
  }

  /** The environment one simulated client runs in: this clock, its own randomness, always visible. */
  env(random: () => number): SimulatedEnvironment {
    return {
      now: () => this.#now,
      setTimeout: (callback, ms) => this.setTimeout(callback, ms),
      clearTimeout: (handle) => this.clearTimeout(handle),
      random,
      visibility: alwaysVisible,
    };
  }
}
