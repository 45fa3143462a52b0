/**
 * A min-heap of client numbers keyed by each client's due time, then by the
 * order they were pushed, for models in which every client has at most one
 * event pending (the AWS study). Typed arrays only: no allocation per event.
 */
export class ClientHeap {
  #heap: Int32Array;
  #seq: Float64Array;
  #size = 0;
  #counter = 0;
  readonly due: Float64Array;

  constructor(clients: number) {
    this.#heap = new Int32Array(clients);
    this.#seq = new Float64Array(clients);
    this.due = new Float64Array(clients);
  }

  #before(a: number, b: number): boolean {
    const due = this.due;
    return due[a]! < due[b]! || (due[a] === due[b] && this.#seq[a]! < this.#seq[b]!);
  }

  /** Schedules `client` at `time`; it must not be pending already. */
  push(client: number, time: number): void {
    this.due[client] = time;
    this.#seq[client] = this.#counter++;
    const heap = this.#heap;
    let i = this.#size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(client, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = client;
  }

  /** The client due first, or -1 when none is pending. */
  pop(): number {
    if (this.#size === 0) return -1;
    const heap = this.#heap;
    const top = heap[0]!;
    const last = heap[--this.#size]!;
    const n = this.#size;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.#before(heap[right]!, heap[left]!) ? right : left;
      if (!this.#before(heap[child]!, last)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    if (n > 0) heap[i] = last;
    return top;
  }
}
