/**
 * One timer of a {@link VirtualClock}, as its `setTimeout` and `at` return
 * it: pass it to `clearTimeout` to cancel it.
 */
export interface VirtualTimer {
  /** The virtual time it is due at (epoch ms, on the clock's resolution grid). */
  readonly time: number;
  /** True until it fires or is cleared. */
  readonly live: boolean;
}

/** A timer as the queue holds it. Cleared entries stay in the queue and are skipped when popped. */
export interface ScheduledEvent extends VirtualTimer {
  time: number;
  /** Arming order: breaks ties between timers due at the same instant. */
  seq: number;
  run: () => void;
  live: boolean;
  /** Armed through the clock's `env()` (the code under test), not by the test itself. */
  fromEnv: boolean;
  /** The clock that armed it, so a foreign handle is never cleared by mistake. */
  owner: object;
}

/** The events due at one instant, in the order they were pushed; `next` is the first not yet popped (those before it are cleared). */
interface Instant {
  events: Array<ScheduledEvent | undefined>;
  next: number;
}

/**
 * A priority queue of events keyed by time, then by insertion order, so
 * events due at the same instant run first-scheduled first and every run
 * of the same simulation visits them in the same order.
 *
 * Events are kept per instant (pushed in order, so already in `seq` order),
 * and only the distinct instants are ordered, in a binary min-heap of plain
 * numbers: a simulation of many clients on a 1 ms grid has a few events per
 * instant and hundreds of thousands pending, and a heap of the events
 * themselves spent most of its time on cache misses, comparing objects
 * scattered over the heap.
 */
export class EventQueue {
  #instants = new Map<number, Instant>();
  #times = new Float64Array(64);
  #count = 0;
  #size = 0;
  #seq = 0;
  /** The earliest instant, looked up once rather than at every peek and pop. */
  #head: Instant | undefined;

  get size(): number {
    return this.#size;
  }

  push(time: number, run: () => void, fromEnv = false, owner: object = this): ScheduledEvent {
    const event: ScheduledEvent = { time, seq: this.#seq++, run, live: true, fromEnv, owner };
    const instant = this.#instants.get(time);
    if (instant) {
      instant.events.push(event);
    } else {
      this.#instants.set(time, { events: [event], next: 0 });
      // A new earliest instant replaces the one looked up.
      if (this.#count === 0 || time < this.#times[0]!) this.#head = undefined;
      this.#pushTime(time);
    }
    this.#size += 1;
    return event;
  }

  peek(): ScheduledEvent | undefined {
    if (this.#count === 0) return undefined;
    const instant = (this.#head ??= this.#instants.get(this.#times[0]!)!);
    return instant.events[instant.next];
  }

  pop(): ScheduledEvent | undefined {
    if (this.#count === 0) return undefined;
    const instant = (this.#head ??= this.#instants.get(this.#times[0]!)!);
    const { events } = instant;
    const event = events[instant.next]!;
    // Let go of it now: an instant armed long ago sits in the old generation, and until a full
    // collection frees it there, each event it still pointed at (and all that event's callback
    // keeps, a request and its answer) would survive every young-generation collection.
    events[instant.next++] = undefined;
    this.#size -= 1;
    if (instant.next === instant.events.length) {
      this.#instants.delete(event.time);
      this.#head = undefined;
      this.#popTime();
    }
    return event;
  }

  #pushTime(time: number): void {
    if (this.#count === this.#times.length) {
      const grown = new Float64Array(this.#times.length * 2);
      grown.set(this.#times);
      this.#times = grown;
    }
    const times = this.#times;
    let i = this.#count++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (times[parent]! <= time) break;
      times[i] = times[parent]!;
      i = parent;
    }
    times[i] = time;
  }

  #popTime(): void {
    const times = this.#times;
    const n = --this.#count;
    if (n === 0) return;
    const last = times[n]!;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && times[right]! < times[left]! ? right : left;
      if (times[child]! >= last) break;
      times[i] = times[child]!;
      i = child;
    }
    times[i] = last;
  }
}
