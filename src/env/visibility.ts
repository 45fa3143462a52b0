import { unsubscribed } from './online.js';

/**
 * Where `poll` learns whether the page is hidden. The default reads
 * `document.visibilityState`; outside a browser the page is never hidden.
 * Inject your own (a simulator, a test, a custom UI) through `env.visibility`.
 */
export interface VisibilitySource {
  /** True while polling should pause. */
  hidden(): boolean;
  /** Calls `listener` whenever visibility may have changed; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

interface DocumentLike {
  hidden?: boolean;
  visibilityState?: string;
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

const currentDocument = (): DocumentLike | undefined => {
  const doc = (globalThis as { document?: DocumentLike }).document;
  return doc && typeof doc.addEventListener === 'function' ? doc : undefined;
};

/** Page visibility from the DOM, looked up when asked, so it also works where `document` appears later (tests); a poll started before it has no pause to check. */
export const documentVisibility: VisibilitySource = {
  hidden: () => {
    const doc = currentDocument();
    return doc ? doc.visibilityState === 'hidden' || doc.hidden === true : false;
  },
  subscribe: (listener) => {
    const doc = currentDocument();
    if (!doc) return unsubscribed;
    doc.addEventListener('visibilitychange', listener);
    return () => doc.removeEventListener('visibilitychange', listener);
  },
};
