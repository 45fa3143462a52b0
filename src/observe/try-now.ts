import type { Wake } from '../env/wait.js';

/** A "try now" button: a {@link Wake} that ends the wait in progress when pressed. */
export interface TryNow {
  /** For `RetryOptions.wake`, or (with `every: true`) a poll feature's `LoopHooks.wake`. */
  wake: Wake<'now'>;
  /** Ends the wait in progress, if any; pressed while nothing waits, it does nothing, now or later. */
  press(): void;
}

/** A fresh {@link TryNow}. */
export function tryNow(): TryNow {
  const listeners = new Set<{ listener: () => void }>();
  let pressing = false;
  return {
    wake: {
      reason: 'now',
      subscribe(listener) {
        const entry = { listener };
        listeners.add(entry);
        return () => void listeners.delete(entry);
      },
      // True only while a press is being told: a later wait never sees an old press.
      ready: () => pressing,
    },
    press() {
      pressing = true;
      try {
        for (const { listener } of [...listeners]) listener();
      } finally {
        pressing = false;
      }
    },
  };
}
