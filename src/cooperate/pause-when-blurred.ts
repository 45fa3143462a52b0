import { documentFocus, type FocusSource } from '../env/focus.js';
import { pauseHooks } from '../engine/pauses.js';
import type { PollFeature } from '../kit/index.js';

/**
 * Sends nothing while the window does not have the focus, and polls at
 * once when it gets it back (even during an interval wait). `source`
 * replaces the DOM's `document.hasFocus()` and `focus`/`blur` events
 * (outside a browser, the window is never blurred: where no window sends
 * `focus` and `blur` events when the poll starts, the feature checks nothing).
 *
 * @example
 * poll('/api/jobs/42', { use: [pauseWhenBlurred()], isDone });
 */
export function pauseWhenBlurred(source: FocusSource = documentFocus): PollFeature {
  return { attach: () => pauseHooks('blurred', 'focus', { holds: () => source.blurred(), subscribe: (listener) => source.subscribe(listener) }) };
}
