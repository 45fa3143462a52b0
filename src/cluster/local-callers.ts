import type { PollCall, PollEvent, PollSink } from '../index.js';
import { later } from './timer.js';

/** One caller of a job in this process: its own sink, and how it settles. */
interface Caller {
  sink: PollSink<unknown>;
  settle(outcome: { data: unknown } | { error: unknown }): void;
}

/** Hands `data` to one caller; a caller whose callbacks throw is settled with that error, alone. */
async function handOver(caller: Caller, data: unknown): Promise<void> {
  try {
    if (await caller.sink.update(data)) caller.settle({ data });
  } catch (error) {
    caller.settle({ error });
  }
}

/**
 * The callers of one job in this process, whoever polls it (this process
 * or another): each gets every body through its own sink (the latest at
 * once when it joins) and settles on its own terms, as `share()`'s callers
 * do. `stop` aborts when the last one has left.
 */
export class LocalCallers {
  /** Aborts when the last caller has left. */
  readonly stop = new AbortController();
  #callers = new Set<Caller>();
  #last: { data: unknown } | undefined;

  /** Callers still waiting for their terminal body. */
  get size(): number {
    return this.#callers.size;
  }

  /** Hands `data` to every caller, each isolated from the others; settles once they all have it. */
  async deliver(data: unknown): Promise<void> {
    this.#last = { data };
    await Promise.all([...this.#callers].map((caller) => handOver(caller, data)));
  }

  /** Emits `event` to every caller; a caller whose `onEvent` throws is settled with that error. */
  emit(event: PollEvent): void {
    for (const caller of [...this.#callers]) {
      try {
        caller.sink.event(event);
      } catch (error) {
        caller.settle({ error });
      }
    }
  }

  /** Rejects every caller with `error` (the job's loop failed here). */
  fail(error: unknown): void {
    for (const caller of [...this.#callers]) caller.settle({ error });
  }

  /** Adds `call`'s caller: it settles with its `isDone` body, its signal's reason, its timeout, or the loop's failure. */
  join<T>(call: PollCall<T>): Promise<T> {
    const { signal, timeout } = call;
    const { env } = call.settings;
    return new Promise<T>((resolve, reject) => {
      const stops: Array<() => void> = [];
      const caller: Caller = {
        sink: call.sink as PollSink<unknown>,
        settle: (outcome) => {
          if (!this.#callers.delete(caller)) return;
          for (const stop of stops) stop();
          if ('data' in outcome) resolve(outcome.data as T);
          else reject(outcome.error);
          if (this.#callers.size === 0) this.stop.abort();
        },
      };
      this.#callers.add(caller);
      if (signal) {
        const aborted = (): void => caller.settle({ error: signal.reason });
        signal.addEventListener('abort', aborted, { once: true });
        stops.push(() => signal.removeEventListener('abort', aborted));
      }
      if (timeout !== undefined) {
        stops.push(later(env, timeout, () => caller.settle({ error: new DOMException(`Polling timed out after ${timeout} ms`, 'TimeoutError') })));
      }
      if (this.#last) void handOver(caller, this.#last.data);
    });
  }
}
