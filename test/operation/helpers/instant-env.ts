import type { Environment } from '../../../src/index.js';

/**
 * Real time, with every timer pollite asks for recorded and fired at once
 * (on the next turn of the event loop), so a test asserts the exact waits
 * chosen without waiting them out. Not for deadlines: they would fire at
 * once too.
 */
export function instantEnv(random = 0.5): { env: Partial<Environment>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    env: {
      random: () => random,
      setTimeout: (callback, ms) => {
        delays.push(ms);
        return setTimeout(callback, 0);
      },
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    },
  };
}
