/**
 * Where `poll` learns whether the network is down. The default reads
 * `navigator.onLine` and listens to the window's `online`/`offline` events;
 * where there is no `navigator.onLine` (Node, Deno) it is never offline.
 * Inject your own through `env.online`.
 */
export interface OnlineSource {
  /** True while requests should wait for the network. */
  offline(): boolean;
  /** Calls `listener` whenever the connection may have changed; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

interface WindowLike {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

/** The global window-like event target, looked up lazily; undefined outside a browser. */
export const eventTarget = (): WindowLike | undefined => {
  const target = globalThis as Partial<WindowLike>;
  return typeof target.addEventListener === 'function' ? (target as WindowLike) : undefined;
};

/** Subscribes `listener` to `types` on the global target (lazily, only when asked), returning the unsubscribe. */
export const listenGlobal =
  (...types: string[]) =>
  (listener: () => void): (() => void) => {
    const target = eventTarget();
    if (!target) return unsubscribed;
    for (const type of types) target.addEventListener(type, listener);
    return () => {
      for (const type of types) target.removeEventListener(type, listener);
    };
  };

/** The unsubscribe of a subscription that attached nothing (no window, no document): one function for all. */
export const unsubscribed = (): void => undefined;

/** The browser's connection state from `navigator.onLine`. */
export const navigatorOnline: OnlineSource = {
  offline: () => (globalThis as { navigator?: { onLine?: unknown } }).navigator?.onLine === false,
  subscribe: /* @__PURE__ */ listenGlobal('online', 'offline'),
};
