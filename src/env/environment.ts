import { documentFocus, type FocusSource } from './focus.js';
import { navigatorOnline, type OnlineSource } from './online.js';
import { documentVisibility, type VisibilitySource } from './visibility.js';

/**
 * Everything pollite takes from the outside world. Every member has a
 * default bound late to the global (so fake timers and spies work); inject
 * replacements to run pollite in virtual time, as the simulator does.
 */
export interface Environment {
  /** Epoch milliseconds. @default () => Date.now() */
  now(): number;
  /** @default (callback, ms) => setTimeout(callback, ms) */
  setTimeout(callback: () => void, ms: number): unknown;
  /** @default (handle) => clearTimeout(handle) */
  clearTimeout(handle: unknown): void;
  /** Randomness for the spread above Retry-After. @default () => Math.random() */
  random(): number;
  /** Page visibility. @default the DOM's `document.visibilityState`, never hidden elsewhere */
  visibility: VisibilitySource;
  /** Connection state. @default `navigator.onLine` with `online`/`offline` events, never offline elsewhere */
  online: OnlineSource;
  /** Window focus. @default `document.hasFocus()` with `focus`/`blur` events, never blurred elsewhere */
  focus: FocusSource;
}

const defaults: Environment = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: () => Math.random(),
  visibility: documentVisibility,
  online: navigatorOnline,
  focus: documentFocus,
};

/** Fills the gaps of a partial environment with the defaults. */
export const resolveEnvironment = (env?: Partial<Environment>): Environment =>
  env ? { ...defaults, ...env } : defaults;
