interface Fan {
  listeners: Set<() => void>;
  fire: () => void;
}

/** One real listener per signal, shared by every pollite wait and request on it. */
const fans = new WeakMap<AbortSignal, Fan>();

/**
 * Calls `callback` once when `signal` aborts; returns the unsubscribe. Every
 * subscription to one signal shares a single `abort` listener, removed with
 * the last subscription: a thousand polls on one signal cost it one listener
 * (and Node no `MaxListenersExceededWarning`), and nothing stays attached.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let fan = fans.get(signal);
  if (!fan) {
    const listeners = new Set<() => void>();
    const created: Fan = {
      listeners,
      fire: () => {
        fans.delete(signal);
        // `once` already drops it; said again for runtimes and wrappers that count listeners by their calls.
        signal.removeEventListener('abort', created.fire);
        for (const listener of listeners) listener();
      },
    };
    fans.set(signal, (fan = created));
    signal.addEventListener('abort', created.fire, { once: true });
  }
  const own = (): void => callback();
  const { listeners, fire } = fan;
  listeners.add(own);
  return () => {
    if (listeners.delete(own) && listeners.size === 0 && fans.get(signal) === fan) {
      fans.delete(signal);
      signal.removeEventListener('abort', fire);
    }
  };
}
