import { onAbort } from './on-abort.js';

/** A controller that follows other signals, and the way to let go of them. */
export interface Link {
  controller: AbortController;
  /** Drops the subscriptions to the followed signals (one parent may outlive millions of children). */
  release(): void;
}

/** A controller that aborts, with the first reason, when any of `signals` does. */
export function link(...signals: Array<AbortSignal | undefined>): Link {
  const controller = new AbortController();
  const stops: Array<() => void> = [];
  for (const signal of signals) {
    if (!signal) continue;
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    stops.push(onAbort(signal, () => controller.abort(signal.reason)));
  }
  return { controller, release: () => stops.forEach((stop) => stop()) };
}
