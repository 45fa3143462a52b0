import type { VisibilitySource } from './visibility.js';
import { documentVisibility } from './visibility.js';

/** Waits until `source` reports visible; see {@link whenVisible}. */
export function whenVisibleIn(source: VisibilitySource, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (!source.hidden()) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const settle = (): void => {
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      settle();
      reject(signal?.reason);
    };
    const unsubscribe = source.subscribe(() => {
      if (source.hidden()) return;
      settle();
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Resolves at once when the page is visible (or there is no `document`),
 * otherwise when it next becomes visible. Rejects with `signal.reason` on
 * abort and removes its listeners either way.
 */
export function whenVisible(signal?: AbortSignal): Promise<void> {
  return whenVisibleIn(documentVisibility, signal);
}
