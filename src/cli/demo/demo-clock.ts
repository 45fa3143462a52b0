import type { Clock } from '../../index.js';

/**
 * A clock the demo moves itself: pollite's `VirtualClock` (`pollite/testing`)
 * without `auto`, or anything with the same `step`: fire the earliest timer,
 * false when none is left.
 */
export interface SteppedClock extends Clock {
  step(): boolean;
}

/** The wall clock, bound late (fake timers and spies see it). */
export const wallClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: () => Math.random(),
};

const isStepped = (clock: Clock): clock is SteppedClock => typeof (clock as Partial<SteppedClock>).step === 'function';

/**
 * What is on the wire between the pollers and the demo API: requests sent
 * and not yet answered in full (their body received to the end, or the fetch
 * failed), and how many of those the API holds in a wait of the demo's clock
 * (a slow answer). Virtual time may move only when every open request is held
 * so: the rest is real loopback I/O, which takes no virtual time.
 */
export function demoWire() {
  let open = 0;
  let held = 0;
  let waiters: Array<() => void> = [];
  const busy = (): boolean => open > held;
  const changed = (): void => {
    if (busy()) return;
    const ready = waiters;
    waiters = [];
    for (const wake of ready) wake();
  };
  const once = (undo: () => void): (() => void) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      undo();
      changed();
    };
  };
  return {
    busy,
    /** A request leaves; call the result when its answer is in, body and all, or it failed. */
    send: (): (() => void) => {
      open += 1;
      return once(() => (open -= 1));
    },
    /** The API holds a request in a wait of the demo's clock; call the result when the wait ends. */
    hold: (): (() => void) => {
      held += 1;
      changed();
      return once(() => (held -= 1));
    },
    /** Resolves once nothing is on the wire but requests the API holds. */
    quiet: (): Promise<void> => (busy() ? new Promise<void>((resolve) => waiters.push(resolve)) : Promise.resolve()),
  };
}

export type DemoWire = ReturnType<typeof demoWire>;

/** One real macrotask: every promise continuation queued so far has run. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Moves a stepped clock one timer at a time, each time once the timer's
 * consequences are over: its promise chains have run and every request it
 * sent has been answered (or is held by the API in a virtual wait). So the
 * same seed gives the same run, to the request, whatever the machine's speed.
 * Returns the function that stops it.
 */
function driveClock(clock: SteppedClock, wire: DemoWire): () => Promise<void> {
  let stopped = false;
  const driving = (async () => {
    while (!stopped) {
      await turn();
      if (wire.busy()) {
        await wire.quiet();
        continue;
      }
      // Nothing due and nothing on the wire: the demo awaits real I/O of its own (the server closing).
      if (!clock.step()) await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();
  return async () => {
    stopped = true;
    await driving;
  };
}

/** Where the demo takes its time from: the wall clock for `npm start`, a virtual clock in its tests. */
export interface DemoOptions {
  /**
   * Time and timers of everything in the demo: both pollers, the demo API
   * (job progress, slow answers, Retry-After), the display's elapsed times.
   * A clock with a `step` method (`VirtualClock` from `pollite/testing`,
   * without `auto`) is moved by the demo itself, one timer at a time, once
   * every request on the wire has been answered: the whole demo then runs
   * in moments, and the same `random` gives the same run to the request.
   * @default the wall clock
   * @example runDemo([], io, { clock: new VirtualClock({ start: Date.UTC(2026, 0, 1) }), random: mulberry32(7) })
   */
  clock?: Clock | SteppedClock;
  /**
   * Randomness of pollite's jitter and Retry-After spread, in [0, 1).
   * @default the clock's `random`
   */
  random?: () => number;
}

/**
 * The demo's time from its options: one clock for everything (bound, with
 * `random` in it), the wire it watches, the demo API's virtual-time `delay`
 * for slow answers, and `drive`, which steps a stepped clock until the
 * function it returns is called (for the wall clock it does nothing).
 */
export function demoTime(options: DemoOptions) {
  const base = options.clock ?? wallClock;
  const clock: Clock = {
    now: () => base.now(),
    setTimeout: (callback, ms) => base.setTimeout(callback, ms),
    clearTimeout: (handle) => base.clearTimeout(handle),
    random: options.random ?? (() => base.random()),
  };
  const wire = demoWire();
  const delay = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const released = wire.hold();
      clock.setTimeout(() => {
        released();
        resolve();
      }, ms);
    });
  const drive = (): (() => Promise<void>) => (isStepped(base) ? driveClock(base, wire) : async () => undefined);
  return { clock, wire, delay, drive };
}
