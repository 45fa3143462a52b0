/**
 * One controller that aborts when any of `signals` does, with the first
 * reason: `linkedController` for several parents. `release()` removes every
 * listener it added.
 */
export function linkSignals(signals: readonly AbortSignal[]): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  const releases: (() => void)[] = [];
  for (const signal of signals) {
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
