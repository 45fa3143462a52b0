import { onAbort } from '../env/on-abort.js';
import { startTimer } from '../env/timer.js';
import type { PollEvent } from '../engine/events.js';
import type { PollCall, PollRunner, PollSink } from '../poll/feature.js';

/**
 * One request loop that several callers share: `share()` and `shareTabs()`
 * run one per shared poll of a realm, `pollite/cluster` one per job of a
 * process. Each caller keeps its own sink (its `onUpdate`, `isDone` and
 * `onEvent`), `signal` and `timeout`, and settles on its own terms; the
 * loop runs with {@link SharedLoop.sink} and {@link SharedLoop.signal}
 * and stops when its last caller has left.
 */
export interface SharedLoop {
  /** Aborts when the last caller has left: the signal to run the loop with. */
  readonly signal: AbortSignal;
  /** The callers still waiting for their terminal body. */
  readonly size: number;
  /**
   * The sink to run the loop with. `update` hands a body to every caller,
   * each through its own sink and isolated from the others (a caller whose
   * callbacks throw is settled with that error, alone), keeps it for the
   * callers that join later, and resolves `true` once no caller is left;
   * `event` emits an event to every caller (one whose `onEvent` throws is
   * settled with that error).
   */
  readonly sink: PollSink<unknown>;
  /**
   * Adds `call`'s caller: it gets every body through its own sink (the
   * latest at once), and settles with the body its `isDone` accepts, its
   * signal's reason, a `TimeoutError` at its `timeout`, or the loop's
   * failure. The loop's `signal` aborts when the last caller has left.
   */
  join<T>(call: PollCall<T>): Promise<T>;
  /**
   * Runs the loop for every caller: `next` (the rest of the feature chain,
   * then the loop) with `call`'s options, this loop's sink and signal, and
   * no caller's signal or timeout. A failure of the loop (a 404, giving up,
   * a later feature whose `run` throws at once) rejects every caller.
   */
  run(call: PollCall<unknown>, next: PollRunner): void;
  /** Rejects every caller with `error` (the loop failed); nothing once the loop has stopped. */
  fail(error: unknown): void;
}

/** The shared loops of a realm, a process or a feature, by key: each leaves with its last caller. */
export interface SharedLoops {
  /** The loop running under `key`, if any. */
  get(key: string): SharedLoop | undefined;
  /**
   * Joins `call` to the loop under `key`; when none runs, makes one, joins
   * `call` to it and hands it to `start`, which starts it: with
   * `loop.run(call, next)`, or with a loop of its own on `loop.sink` and
   * `loop.signal` (a leader elected across tabs or processes). Resolves or
   * rejects as {@link SharedLoop.join}.
   *
   * @example
   * const loops = createSharedLoops();
   * const mine: PollFeature = {
   *   run(call, next) {
   *     const same = shareIdentity(call, { feature: mine });
   *     return same ? loops.join(same.key, call, (loop) => loop.run(call, next)) : next(call);
   *   },
   * };
   */
  join<T>(key: string, call: PollCall<T>, start: (loop: SharedLoop) => void): Promise<T>;
}

/** One caller of a shared loop: its own sink, and how it settles. */
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

/** A new shared loop, empty until its first caller joins; `onEmpty` runs when the last one leaves. */
function sharedLoop(onEmpty: () => void): SharedLoop {
  const callers = new Set<Caller>();
  const stop = new AbortController();
  let last: { data: unknown } | undefined;
  const emit = (event: PollEvent): void => {
    for (const caller of [...callers]) {
      try {
        caller.sink.event(event);
      } catch (error) {
        caller.settle({ error });
      }
    }
  };
  const loop: SharedLoop = {
    signal: stop.signal,
    get size() {
      return callers.size;
    },
    sink: {
      update: async (data) => {
        last = { data };
        await Promise.all([...callers].map((caller) => handOver(caller, data)));
        return callers.size === 0;
      },
      event: emit,
    },
    join<T>(call: PollCall<T>): Promise<T> {
      const { signal, timeout } = call;
      const { env } = call.settings;
      return new Promise<T>((resolve, reject) => {
        const stops: Array<() => void> = [];
        const caller: Caller = {
          sink: call.sink as PollSink<unknown>,
          settle(outcome) {
            if (!callers.delete(caller)) return;
            for (const off of stops) off();
            if ('data' in outcome) resolve(outcome.data as T);
            else reject(outcome.error);
            if (callers.size === 0) stop.abort();
          },
        };
        callers.add(caller);
        if (signal) stops.push(onAbort(signal, () => caller.settle({ error: signal.reason })));
        // The platform's own TimeoutError, as `AbortSignal.timeout()` makes: this caller's deadline passed, not the loop's.
        if (timeout !== undefined) stops.push(startTimer(env, timeout, () => caller.settle({ error: new DOMException(`Polling timed out after ${timeout} ms`, 'TimeoutError') })));
        if (last) void handOver(caller, last.data);
      });
    },
    run(call, next) {
      // In a promise: a feature after the sharing one whose `run` throws at once fails the callers, as a rejection
      // would, instead of leaving a loop that never runs under its key.
      new Promise((started) => started(next({ ...call, sink: loop.sink, signal: stop.signal, timeout: undefined }))).catch((error: unknown) => loop.fail(error));
    },
    fail(error) {
      if (!stop.signal.aborted) for (const caller of [...callers]) caller.settle({ error });
    },
  };
  stop.signal.addEventListener('abort', onEmpty, { once: true });
  return loop;
}

/**
 * A registry of shared loops by key, the one behind `share()`,
 * `shareTabs()` and `pollite/cluster`'s `share()`: a caller joins the loop
 * running under its key or starts one, and a loop leaves the registry with
 * its last caller. Keys are the caller's to choose: {@link shareIdentity}
 * gives what makes two polls one.
 */
export function createSharedLoops(): SharedLoops {
  const loops = new Map<string, SharedLoop>();
  return {
    get: (key) => loops.get(key),
    join(key, call, start) {
      const running = loops.get(key);
      if (running) return running.join(call);
      const loop = sharedLoop(() => {
        if (loops.get(key) === loop) loops.delete(key);
      });
      loops.set(key, loop);
      const joined = loop.join(call);
      start(loop);
      return joined;
    },
  };
}
