import type { Environment } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';

/**
 * pollite's virtual clock as the tests over a real server use it: every
 * delay pollite asks for is recorded, and (`auto`, the default) every timer
 * fires at once in real time, in due order, with virtual `now` (starting at
 * the real time) moving to its due time, so tests assert the exact waits
 * chosen without waiting them out. `auto: false` leaves the timers pending
 * until the test moves the clock (or aborts): what a test needs whose wait
 * must not end by itself.
 */
export function recordingEnv(options: { random?: number; auto?: boolean } = {}): {
  clock: VirtualClock;
  env: Partial<Environment>;
  delays: readonly number[];
  pending: () => number;
} {
  const clock = new VirtualClock({ start: Date.now(), random: options.random ?? 0.5, recordDelays: true, auto: options.auto ?? true });
  return { clock, env: clock.env(), delays: clock.delays, pending: () => clock.pending('env') };
}

/**
 * Real timers, spied on: every delay asked for is recorded and the live
 * timers counted. Not a clock (time is real): for the few tests whose
 * timers must race a real server's latency (a request timeout against an
 * endless body), where no virtual clock can stand in.
 */
export function realTimersEnv(options: { random?: number } = {}): {
  env: Partial<Environment>;
  delays: readonly number[];
  pending: () => number;
} {
  const delays: number[] = [];
  const live = new Set<ReturnType<typeof setTimeout>>();
  const env: Partial<Environment> = {
    random: () => options.random ?? 0.5,
    setTimeout: (callback, ms) => {
      delays.push(ms);
      const handle = setTimeout(() => {
        live.delete(handle);
        callback();
      }, ms);
      live.add(handle);
      return handle;
    },
    clearTimeout: (handle) => {
      live.delete(handle as ReturnType<typeof setTimeout>);
      clearTimeout(handle as ReturnType<typeof setTimeout>);
    },
  };
  return { env, delays, pending: () => live.size };
}

/** A fixed sequence of random numbers, repeating the last. */
export const randomSequence = (values: number[]): (() => number) => {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)]!;
};
