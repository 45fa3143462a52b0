import { underCi } from '../helpers/tools.js';

/**
 * How many generated cases each property runs: 1,000 by default, fewer
 * locally with FC_RUNS=100 while iterating. Under CI 1,000 is the floor:
 * FC_RUNS may raise it, nothing lowers it.
 */
export const FC_RUNS = ((): number => {
  const asked = Number(process.env.FC_RUNS);
  const runs = Number.isInteger(asked) && asked > 0 ? asked : 1000;
  return underCi() ? Math.max(runs, 1000) : runs;
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
