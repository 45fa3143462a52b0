import { realClock, type Clock } from './clock.js';
import { navigatorOnline, type OnlineSource } from './online.js';
import { documentVisibility, type VisibilitySource } from './visibility.js';

/**
 * Everything `poll` takes from the outside world: the {@link Clock}, and
 * whether the page is hidden or the network down. Defaults are the real
 * ones; inject replacements through `env` (tests, the simulator).
 */
export interface Environment extends Clock {
  /** Page visibility. @default the DOM's `document.visibilityState`; never hidden elsewhere */
  visibility: VisibilitySource;
  /** Connection state. @default `navigator.onLine` with `online`/`offline` events; never offline elsewhere */
  online: OnlineSource;
}

const defaults: Environment = { ...realClock, visibility: documentVisibility, online: navigatorOnline };

/** Fills the gaps of a partial environment with the defaults. */
export const resolveEnvironment = (env?: Partial<Environment>): Environment => (env ? { ...defaults, ...env } : defaults);
