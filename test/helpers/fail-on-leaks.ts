/**
 * A setup file of every vitest run (vitest.config.ts `setupFiles`): a
 * `MaxListenersExceededWarning` or an unhandled rejection while a test runs
 * fails that test, with the warning's or the rejection's text. Node prints the
 * first and vitest reports the second after the fact, with no test named; a
 * leak that only warns would otherwise pass.
 *
 * Both arrive a turn late (Node emits a warning on the next tick, an unhandled
 * rejection once the microtasks drain), so each test ends with one macrotask
 * turn before the check (node:timers' own, which fake timers leave alone).
 */
import { setImmediate as nextTurn } from 'node:timers';
import { afterEach } from 'vitest';

interface Watch {
  problems: string[];
}

const KEY = Symbol.for('pollite.test.fail-on-leaks');
const scope = globalThis as typeof globalThis & { [KEY]?: Watch };

const describe = (value: unknown): string => {
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  try {
    return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

// Once per process, whichever test file loads first: the handlers outlive a file.
const watch: Watch = (scope[KEY] ??= ((): Watch => {
  const created: Watch = { problems: [] };
  process.on('warning', (warning: Error) => {
    if (warning.name === 'MaxListenersExceededWarning') created.problems.push(`${warning.name}: ${warning.message}`);
  });
  process.on('unhandledRejection', (reason: unknown) => {
    created.problems.push(`Unhandled rejection: ${describe(reason)}`);
  });
  return created;
})());

afterEach(async () => {
  await new Promise((resolve) => nextTurn(resolve));
  if (watch.problems.length === 0) return;
  const seen = watch.problems.splice(0);
  throw new Error(`This test left ${seen.length === 1 ? 'a leak' : `${seen.length} leaks`} behind:\n${seen.join('\n')}`);
});
