import { onAbort } from '../env/on-abort.js';
import { startTimer } from '../env/timer.js';
import { timeoutError } from '../errors/timeout-error.js';
import type { PollCall, PollEvent, PollSink } from '../index.js';

/** One caller of a shared loop: its own sink, and how it settles. */
interface Caller {
  sink: PollSink<unknown>;
  settle(outcome: { data: unknown } | { error: unknown }): void;
}

/** A request loop that several callers share, in this realm or across tabs. */
export interface SharedLoop {
  callers: Set<Caller>;
  /** The latest body, handed at once to callers that join later. */
  last?: { data: unknown };
  /** Aborts when the last caller has left. */
  stop: AbortController;
  /** The sink the loop reports to: every caller's, each isolated from the others. */
  sink: PollSink<unknown>;
  /** Emits an event to every caller. */
  emit(event: PollEvent): void;
  /** Rejects every caller with `error` (the loop failed). */
  fail(error: unknown): void;
}

/** Hands `data` to one caller; a caller whose callbacks throw is settled with that error, alone. */
async function deliver(caller: Caller, data: unknown): Promise<void> {
  try {
    if (await caller.sink.update(data)) caller.settle({ data });
  } catch (error) {
    caller.settle({ error });
  }
}

/** A new shared loop, empty until its first caller joins; `onEmpty` runs when the last one leaves. */
export function sharedLoop(onEmpty: () => void): SharedLoop {
  const loop: SharedLoop = {
    callers: new Set(),
    stop: new AbortController(),
    sink: {
      update: async (data) => {
        loop.last = { data };
        await Promise.all([...loop.callers].map((caller) => deliver(caller, data)));
        return loop.callers.size === 0;
      },
      event: (event) => loop.emit(event),
    },
    emit(event) {
      for (const caller of [...loop.callers]) {
        try {
          caller.sink.event(event);
        } catch (error) {
          caller.settle({ error });
        }
      }
    },
    fail(error) {
      if (!loop.stop.signal.aborted) for (const caller of [...loop.callers]) caller.settle({ error });
    },
  };
  loop.stop.signal.addEventListener('abort', onEmpty, { once: true });
  return loop;
}

/**
 * Joins `call`'s caller to `loop`: it gets every update through its own
 * sink (the latest at once), and settles on its own terms: its `isDone`,
 * its signal, its timeout, or the loop's failure. The loop stops when its
 * last caller has left.
 */
export function join<T>(loop: SharedLoop, call: PollCall<T>): Promise<T> {
  const { signal, timeout } = call;
  const { env } = call.settings;
  return new Promise<T>((resolve, reject) => {
    const stops: Array<() => void> = [];
    const caller: Caller = {
      sink: call.sink as PollSink<unknown>,
      settle(outcome) {
        if (!loop.callers.delete(caller)) return;
        for (const stop of stops) stop();
        if ('data' in outcome) resolve(outcome.data as T);
        else reject(outcome.error);
        if (loop.callers.size === 0) loop.stop.abort();
      },
    };
    loop.callers.add(caller);
    if (signal) stops.push(onAbort(signal, () => caller.settle({ error: signal.reason })));
    if (timeout !== undefined) stops.push(startTimer(env, timeout, () => caller.settle({ error: timeoutError(`Polling timed out after ${timeout} ms`) })));
    if (loop.last) void deliver(caller, loop.last.data);
  });
}
