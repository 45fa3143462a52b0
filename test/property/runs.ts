import fc from 'fast-check';
import { TestRunner } from 'vitest';
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

/**
 * Runs of a property whose every case costs real time (a stall waited out, a
 * process started), so fewer than {@link FC_RUNS}: `fallback`, which FC_RUNS
 * may lower while iterating, and which under CI is the floor.
 */
export function slowRuns(fallback: number): number {
  const asked = Number(process.env.FC_RUNS);
  if (underCi()) return fallback;
  return Number.isInteger(asked) && asked > 0 ? Math.min(asked, fallback) : fallback;
}

/** The share of its test's timeout a property may spend, generating and shrinking. */
export const FC_TIME_SHARE = 0.8;
/** The timeout assumed outside a test, or for one without a timeout, ms: the property tests' own. */
const NO_TEST_TIMEOUT = 300_000;

/**
 * How long one `fc.assert` may run, ms: {@link FC_TIME_SHARE} of the running
 * test's timeout, so that fast-check, not vitest, ends a property that runs
 * too long, with the smallest counterexample it has shrunk to so far.
 */
export const propertyTimeLimit = (testTimeout: number | undefined = TestRunner.getCurrentTest()?.timeout): number =>
  Math.floor((testTimeout !== undefined && testTimeout > 0 && Number.isFinite(testTimeout) ? testTimeout : NO_TEST_TIMEOUT) * FC_TIME_SHARE);

/**
 * fast-check's `interruptAfterTimeLimit` with `failOnInterrupt`, the plugin
 * form of the `interruptAfterTimeLimit` and `markInterruptAsFailure: true`
 * parameters (deprecated since fast-check 4.10): a property interrupted
 * before its runs are done fails, it never passes on fewer cases. Its limit
 * is read when each `fc.assert` starts, from the test running it.
 */
export const timeLimitPlugin: fc.UniversalPlugin = (index, store) => fc.interruptAfterTimeLimit(propertyTimeLimit(), { failOnInterrupt: true })(index, store);

// Every property of a test file that imports this one (each does, test/ci/rules.test.ts checks
// it): installed once per fast-check instance, which vitest gives each test file.
const INSTALLED = Symbol.for('pollite.test.fc-time-limit');
const marked = fc as unknown as { [INSTALLED]?: true };
if (!marked[INSTALLED]) {
  fc.installGlobalPlugin(timeLimitPlugin);
  marked[INSTALLED] = true;
}

/** Collects unhandled rejections while a property runs; pollite must never leave one. */
export function watchUnhandled(): { seen: unknown[]; stop: () => void } {
  const seen: unknown[] = [];
  const listener = (reason: unknown): void => {
    seen.push(reason);
  };
  process.on('unhandledRejection', listener);
  return { seen, stop: () => process.off('unhandledRejection', listener) };
}
