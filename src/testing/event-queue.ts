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

/** A timer as the queue holds it. Cleared entries stay in the heap and are skipped when popped. */
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

const before = (a: ScheduledEvent, b: ScheduledEvent): boolean => a.time < b.time || (a.time === b.time && a.seq < b.seq);

/**
 * A binary min-heap of events keyed by time, then by insertion order, so
 * events due at the same instant run first-scheduled first and every run
 * of the same simulation visits them in the same order.
 */
export class EventQueue {
  #heap: ScheduledEvent[] = [];
  #seq = 0;

  get size(): number {
    return this.#heap.length;
  }

  push(time: number, run: () => void, fromEnv = false, owner: object = this): ScheduledEvent {
    const event: ScheduledEvent = { time, seq: this.#seq++, run, live: true, fromEnv, owner };
    const heap = this.#heap;
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(event, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = event;
    return event;
  }

  peek(): ScheduledEvent | undefined {
    return this.#heap[0];
  }

  pop(): ScheduledEvent | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    const n = heap.length;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && before(heap[right]!, heap[left]!) ? right : left;
      if (!before(heap[child]!, last)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
