/**
 * Something a UI can watch: the contract of React's `useSyncExternalStore`,
 * which Vue, Svelte and Solid adapters subscribe to just as well.
 */
export interface Subscribable<TSnapshot> {
  /** Calls `listener` after each change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** The current value: the same object until the next change. */
  getSnapshot(): TSnapshot;
}

/** A value and those who watch it: the one mechanism behind the poll and fetch states and the countdown. */
export interface Store<TValue> extends Subscribable<TValue> {
  /** Replaces the value and tells every listener; the same value, or an object with the same fields (`Object.is`), changes nothing and tells nobody. */
  set(next: TValue): void;
}

const sameValue = (a: unknown, b: unknown): boolean => {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.is((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
};

/**
 * A store holding `initial`. `watched(true)` is called when the first
 * listener subscribes and `watched(false)` when the last one leaves, so a
 * store that nobody watches holds no timer and no subscription.
 */
export function createStore<TValue>(initial: TValue, watched?: (watching: boolean) => void): Store<TValue> {
  let value = initial;
  // Entries, not the functions themselves: the same listener subscribed twice is two subscriptions.
  const listeners = new Set<{ listener: () => void }>();
  return {
    getSnapshot: () => value,
    set(next) {
      if (sameValue(next, value)) return;
      value = next;
      for (const entry of [...listeners]) {
        try {
          entry.listener();
        } catch (error) {
          // One failing listener must neither stop the others nor the loop that changed the value.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    },
    subscribe(listener) {
      const entry = { listener };
      listeners.add(entry);
      if (listeners.size === 1) watched?.(true);
      return () => {
        if (listeners.delete(entry) && listeners.size === 0) watched?.(false);
      };
    },
  };
}
