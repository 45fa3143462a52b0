import { realClock } from './clock.js';
import { documentVisibility, type VisibilitySource } from './visibility.js';
import { wait, type Wake } from './wait.js';

/** The wake for a wait that ends when `source` reports visible. */
export const visibleWake = (source: VisibilitySource): Wake<'visible'> => ({
  reason: 'visible',
  subscribe: (listener) => source.subscribe(listener),
  ready: () => !source.hidden(),
});

/**
 * Resolves at once when the page is visible (or there is no `document`),
 * otherwise when it next becomes visible. Rejects with `signal.reason` on
 * abort and removes its listeners either way.
 *
 * @example
 * await whenVisible(controller.signal);
 */
export function whenVisible(signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (!documentVisibility.hidden()) return Promise.resolve();
  return wait(realClock, Infinity, signal, [visibleWake(documentVisibility)]).then(() => undefined);
}
