/**
 * How late this process's timers fire while it runs (a busy machine runs
 * them late): the tests' bounds on a stall are the design's bound plus
 * this, never a wide fixed tolerance.
 */
export function lagProbe(every = 20): { max(): number; stop(): number } {
  let max = 0;
  let due = Date.now() + every;
  const timer = setInterval(() => {
    max = Math.max(max, Date.now() - due);
    due = Date.now() + every;
  }, every);
  return {
    max: () => max,
    stop: () => (clearInterval(timer), max),
  };
}
