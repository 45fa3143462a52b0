import { recordingEnv } from '../helpers/env.js';

/**
 * A virtual clock for a call against a real server whose deadline must not
 * fire while a request is in flight (an `auto` clock fires every timer at
 * once, the deadline's too): `fetch` counts the requests in flight, and
 * `settle(call)` fires the next timer only while none is, letting real
 * I/O and promise chains run between, until the call settles.
 */
export function idleStepper() {
  const { clock, env } = recordingEnv({ auto: false });
  let inFlight = 0;
  const fetchCounted: typeof fetch = async (...args) => {
    inFlight += 1;
    try {
      return await fetch(...args);
    } finally {
      inFlight -= 1;
    }
  };
  const settle = async <T>(call: Promise<T>): Promise<T | unknown> => {
    let settled = false;
    const outcome = call.then(
      (value) => value,
      (error: unknown) => error,
    );
    void outcome.finally(() => (settled = true));
    while (!settled) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (!settled && inFlight === 0) clock.step();
    }
    return outcome;
  };
  return { clock, env, fetch: fetchCounted, settle };
}
