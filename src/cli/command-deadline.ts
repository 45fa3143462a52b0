import type { Clock } from '../index.js';

/**
 * The signal of one run of the command: `parent` (Ctrl-C, SIGTERM) or, once
 * `ms` have passed, a `TimeoutError` DOMException. The deadline is a plain
 * `setTimeout` held here and cleared by `release`, never
 * `AbortSignal.timeout` inside `AbortSignal.any`: on Node 20 a garbage
 * collection can drop such a timeout signal, and then `--timeout` never
 * fired (a 503 was polled forever).
 */
export function commandDeadline(
  parent: AbortSignal,
  ms: number | undefined,
  timers: Pick<Clock, 'setTimeout' | 'clearTimeout'> = { setTimeout: (callback, ms) => setTimeout(callback, ms), clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>) },
): { signal: AbortSignal; release(): void } {
  if (ms === undefined) return { signal: parent, release: () => undefined };
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent.reason);
  const timer = timers.setTimeout(() => controller.abort(new DOMException(`--timeout passed (${ms} ms)`, 'TimeoutError')), ms);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      timers.clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}
