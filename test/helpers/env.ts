import type { Environment } from '../../src/index.js';

/**
 * A real-time environment that records every delay pollite asks for and
 * runs timers after `scale * ms` real milliseconds (0 by default), so tests
 * assert the exact waits chosen without waiting them out.
 */
export function recordingEnv(options: { random?: number; scale?: number; hidden?: () => boolean } = {}): {
  env: Partial<Environment>;
  delays: number[];
  pending: () => number;
} {
  const delays: number[] = [];
  const live = new Set<ReturnType<typeof setTimeout>>();
  const scale = options.scale ?? 0;
  const env: Partial<Environment> = {
    random: () => options.random ?? 0.5,
    setTimeout: (callback, ms) => {
      delays.push(ms);
      const handle = setTimeout(() => {
        live.delete(handle);
        callback();
      }, ms * scale);
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
