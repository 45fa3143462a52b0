/**
 * How many generated cases each property runs: 1,000 by default (and at
 * least that under CI), fewer locally with FC_RUNS=100 while iterating.
 */
export const FC_RUNS = ((): number => {
  const asked = Number(process.env.FC_RUNS);
  const runs = Number.isInteger(asked) && asked > 0 ? asked : 1000;
  return process.env.CI === 'true' ? Math.max(runs, 1000) : runs;
})();

/** Collects unhandled rejections while a property runs; pollite must never leave one. */
export function watchUnhandled(): { seen: unknown[]; stop: () => void } {
  const seen: unknown[] = [];
  const listener = (reason: unknown): void => {
    seen.push(reason);
  };
  process.on('unhandledRejection', listener);
  return { seen, stop: () => process.off('unhandledRejection', listener) };
}
