import { linkedController } from '../env/abortable.js';

/**
 * One controller that aborts when any of `signals` does, with the first
 * reason. `release()` removes every listener it added.
 */
export function linkSignals(signals: readonly AbortSignal[]): { controller: AbortController; release: () => void } {
  const [first, ...rest] = signals;
  if (!first) return { controller: new AbortController(), release: () => undefined };
  const link = linkedController(first);
  const { controller } = link;
  const releases = [link.release];
  for (const signal of rest) {
    if (controller.signal.aborted) break;
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    const onAbort = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    releases.push(() => signal.removeEventListener('abort', onAbort));
  }
  return { controller, release: () => releases.forEach((release) => release()) };
}
