import type { Clock, Environment } from '../index.js';
import { checkOptions } from '../options/check.js';
import { EventQueue, type ScheduledEvent, type VirtualTimer } from './event-queue.js';
import { macrotask, microtaskDrainer, nextMacrotask } from './macrotask.js';
import { alwaysVisible, optionChecks, type TimerSet, type VirtualClockOptions, type VirtualEnvironment } from './virtual-clock-options.js';

/**
 * One virtual clock for tests and simulations: pollite's {@link Clock}
 * (`now`, `setTimeout`, `clearTimeout`, `random`) on a priority queue of
 * timers in virtual time. Give its {@link VirtualClock.env | env()} to
 * `poll`, `retry` or `fetchWithRetry` and the real library code runs
 * unchanged, only without waiting: time moves when the test says so
 * (`step`, `advance`, `run`), or by itself with `auto`.
 *
 * Timers due at the same instant fire in the order they were armed.
 * Timers armed through `env()` belong to the code under test (they are
 * recorded and counted apart); those armed on the clock itself
 * (`clock.setTimeout`, `clock.at`) are the test's own: a server's latency,
 * a page that hides, an abort.
 *
 * @example
 * import { poll } from 'pollite';
 * import { VirtualClock } from 'pollite/testing';
 *
 * const clock = new VirtualClock({ recordDelays: true });
 * const job = poll('/api/jobs/42', { interval: 5000, env: clock.env(), isDone: (j) => j.done });
 * await clock.advance(60_000); // a minute of polling, in microseconds
 * clock.delays; // [5000, 5000, ...]
 */
export class VirtualClock implements Clock {
  /** The grid due times are rounded up to, ms (0: exact). @default 0 */
  readonly resolution: number;
  #queue = new EventQueue();
  #now: number;
  #random: () => number;
  #record: boolean;
  #auto: boolean;
  #delays: number[] = [];
  #live = 0;
  #liveEnv = 0;
  #ticking = false;
  #env: VirtualEnvironment | undefined;

  /**
   * @param options see {@link VirtualClockOptions}; a `TypeError` names the first bad one.
   * @example new VirtualClock({ start: Date.UTC(2026, 0, 1), random: 0, recordDelays: true })
   */
  constructor(options?: VirtualClockOptions) {
    const o = checkOptions(options, optionChecks);
    this.#now = o.start ?? 0;
    this.resolution = o.resolution ?? 0;
    const random = o.random ?? 0.5;
    this.#random = typeof random === 'number' ? () => random : random;
    this.#record = o.recordDelays ?? false;
    this.#auto = o.auto ?? false;
  }

  /**
   * The virtual time, epoch ms.
   * @example clock.now() // 0 on a new clock, then the due time of each timer as it fires
   */
  now(): number {
    return this.#now;
  }

  /**
   * A draw of the clock's randomness (see {@link VirtualClockOptions.random}).
   * @default 0.5
   */
  random(): number {
    return this.#random();
  }

  /**
   * Arms a timer of the test's own, `ms` from now (a negative or NaN delay
   * is 0). Not recorded in `delays`, not counted by `pending('env')`.
   * @example clock.setTimeout(() => page.hide(), 30_000)
   */
  setTimeout(callback: () => void, ms: number): VirtualTimer {
    return this.#schedule(this.#now + (ms > 0 ? ms : 0), callback, false);
  }

  /**
   * Arms a timer of the test's own at virtual time `time` (never earlier than now).
   * @example clock.at(clock.now() + 120, () => respond()) // a reply after 120 ms of latency
   */
  at(time: number, callback: () => void): VirtualTimer {
    return this.#schedule(time, callback, false);
  }

  /**
   * Cancels a timer of this clock that has not fired yet; anything else
   * (a fired timer, another clock's, `undefined`) is ignored, as the real
   * `clearTimeout` ignores it.
   */
  clearTimeout(handle: unknown): void {
    const event = handle as ScheduledEvent | null;
    if (typeof event !== 'object' || event === null || event.owner !== this || !event.live) return;
    event.live = false;
    this.#live -= 1;
    if (event.fromEnv) this.#liveEnv -= 1;
  }

  /**
   * The environment to run pollite in: this clock's `now`, `setTimeout`,
   * `clearTimeout` and `random`, and a page that is never hidden, with
   * `overrides` on top (a visibility the test controls, a per-client
   * `random`). Without overrides it is one frozen object, the same on every
   * call. Pass this, not the clock itself: pollite copies an `env`'s own
   * properties, and a class keeps its methods on the prototype.
   * @default { visibility: always visible } and pollite's default `online`
   * @example poll(url, { env: clock.env({ visibility: myPage }) })
   */
  env(overrides?: Partial<Environment>): VirtualEnvironment {
    const base = (this.#env ??= Object.freeze({
      now: () => this.#now,
      setTimeout: (callback: () => void, ms: number): VirtualTimer => {
        if (this.#record) this.#delays.push(ms);
        return this.#schedule(this.#now + (ms > 0 ? ms : 0), callback, true);
      },
      clearTimeout: (handle: unknown) => this.clearTimeout(handle),
      random: this.#random,
      visibility: alwaysVisible,
    }));
    return overrides === undefined ? base : { ...base, ...overrides };
  }

  /**
   * Every delay asked of the `env()`'s `setTimeout`, in order, as asked
   * (before rounding): the waits pollite chose, its deadlines and request
   * timeouts. Empty unless `recordDelays` is set.
   * @default []
   * @example expect(clock.delays).toEqual([1000, 1000])
   */
  get delays(): readonly number[] {
    return this.#delays;
  }

  /**
   * How many timers are armed and not yet fired or cleared: all of them, or
   * (`'env'`) only those the code under test armed through `env()`, which
   * must be 0 once it settles.
   * @default 'all'
   * @example expect(clock.pending('env')).toBe(0) // poll left no timer behind
   */
  pending(which: TimerSet = 'all'): number {
    return which === 'env' ? this.#liveEnv : this.#live;
  }

  /**
   * Fires the earliest timer (ties: first armed first) synchronously,
   * moving `now` to its due time. Promise continuations it starts run only
   * once the caller yields. Returns false when no timer is left.
   * @example while (clock.step()) await new Promise((resolve) => setImmediate(resolve));
   */
  step(): boolean {
    const next = this.#earliest();
    if (next === undefined) return false;
    this.#queue.pop();
    if (next.time > this.#now) this.#now = next.time;
    this.#fire(next);
    return true;
  }

  /**
   * Moves time forward by `ms`, firing every timer due on the way (those the
   * fired callbacks arm too) in order, and after each one letting promise
   * chains and real I/O settle (a macrotask) before the next. `now` ends at
   * exactly `now + ms`.
   * @example
   * const result = poll(url, { interval: 1000, env: clock.env() });
   * await clock.advance(1000); // the second request goes out
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + (ms > 0 ? ms : 0);
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.time > end) break;
      this.#queue.pop();
      if (next.time > this.#now) this.#now = next.time;
      this.#fire(next);
      await nextMacrotask();
    }
    if (end > this.#now) this.#now = end;
  }

  /**
   * The fast path for simulations: jumps from one due instant to the next up
   * to the virtual time `until`, firing every timer due at an instant, then
   * (with `drain`) letting the promise continuations they started finish
   * before time moves on; leaves `now` at `until`. With `drain` false,
   * callbacks must not rely on promises (a purely callback-driven model).
   * Each instant costs one macrotask hop (setImmediate in Node), not one per
   * timer: many timers on one `resolution` grid point share it.
   * @param until the virtual time to stop at, epoch ms
   * @param drain let promise continuations finish at each instant (default `true`)
   * @example await clock.run(5 * 60_000) // five virtual minutes of a fleet of clients
   */
  run(until: number, drain = true): Promise<void> {
    const queue = this.#queue;
    const drainer = drain ? microtaskDrainer() : undefined;
    return new Promise<void>((resolve, reject) => {
      // One callback per instant, re-armed by the drainer's hop: no promise and no async resumption per instant.
      const instants = (): void => {
        try {
          for (;;) {
            const next = queue.peek();
            if (next === undefined || next.time > until) break;
            const time = next.time;
            this.#now = time;
            do {
              const event = queue.pop()!;
              if (event.live) this.#fire(event);
            } while (queue.peek()?.time === time);
            if (drainer) return drainer.hop(instants);
          }
        } catch (error) {
          drainer?.close();
          return reject(error);
        }
        drainer?.close();
        this.#now = Math.max(this.#now, until);
        resolve();
      };
      instants();
    });
  }

  #schedule(time: number, run: () => void, fromEnv: boolean): ScheduledEvent {
    const r = this.resolution;
    const now = this.#now;
    const grid = r > 0 ? Math.ceil(time / r - 1e-9) * r : time;
    const event = this.#queue.push(grid > now ? grid : now, run, fromEnv, this);
    this.#live += 1;
    if (fromEnv) this.#liveEnv += 1;
    if (this.#auto && !this.#ticking) this.#wake();
    return event;
  }

  #fire(event: ScheduledEvent): void {
    event.live = false;
    this.#live -= 1;
    if (event.fromEnv) this.#liveEnv -= 1;
    event.run();
  }

  /** The earliest live timer, dropping cleared ones off the top of the heap. */
  #earliest(): ScheduledEvent | undefined {
    const queue = this.#queue;
    let next = queue.peek();
    while (next !== undefined && !next.live) {
      queue.pop();
      next = queue.peek();
    }
    return next;
  }

  #wake(): void {
    this.#ticking = true;
    macrotask(this.#tick);
  }

  #tick = (): void => {
    this.#ticking = false;
    try {
      this.step();
    } finally {
      if (this.#live > 0 && !this.#ticking) this.#wake();
    }
  };
}
