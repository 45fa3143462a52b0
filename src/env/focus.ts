import { listenGlobal } from './online.js';

/**
 * Where `poll` learns whether the window has lost focus (for
 * `pauseWhenBlurred`). The default asks `document.hasFocus()` and listens to
 * the window's `focus`/`blur` events; outside a browser it is never blurred.
 * Pass your own to `pauseWhenBlurred(source)` (pollite/cooperate).
 */
export interface FocusSource {
  /** True while the window does not have the focus. */
  blurred(): boolean;
  /** Calls `listener` whenever focus may have changed; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

/** Window focus from the DOM. */
export const documentFocus: FocusSource = {
  blurred: () => (globalThis as { document?: { hasFocus?: () => boolean } }).document?.hasFocus?.() === false,
  subscribe: /* @__PURE__ */ listenGlobal('focus', 'blur'),
};
