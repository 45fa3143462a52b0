import { checkNames, refuse } from '../options/check.js';
import type { PollCall, PollFeature, RunCheckpoint, ShareKeyOption } from '../kit/index.js';

/** Options of `share()` and `shareTabs()`. */
export interface ShareOptions {
  /**
   * Says that polls of one request (method, URL, headers, body and what of
   * `init` fetch reads: `credentials`, `mode`, `cache`, `redirect`,
   * `integrity` and any other field of plain value) under this key are the
   * same poll, whatever their `fetch`, `parse`, objects in `init` (Node's
   * `dispatcher`) and features after the sharing one that run the loop:
   * that those send the same request as the same user and read the answer
   * alike. Without a key those are compared by identity within a realm (two
   * polls with different `fetch` wrappers never share), and cannot be
   * compared at all across tabs or processes: there, a poll with any of
   * them of its own shares only within its tab or process (a `share` event
   * says `local`, and why). A function is called with each call and gives
   * the key of that call (the user its `fetch` signs for). The key is never
   * a name others can read (`shareTabs()` and `cluster.share()` hash it);
   * a key that is not a non-empty string is a `TypeError`.
   * @default none: `fetch`, `parse` and the rest are compared as above
   * @example shareTabs({ key: () => `user ${session.userId}` }) // a fetch that adds the session's token
   */
  key?: ShareKeyOption;
}

/** The `key` option, checked. */
export function checkShareKey(options: ShareOptions | undefined): ShareKeyOption | undefined {
  if (options === undefined) return undefined;
  // The key a call ends up with is checked again where it is used, in production too (see shareIdentity).
  if (typeof __DEV__ === 'undefined' || __DEV__) {
    if (typeof options !== 'object' || options === null) refuse('options', 'an object');
    checkNames(options, ['key']);
    const { key } = options;
    if (key !== undefined && typeof key !== 'function' && (typeof key !== 'string' || key === '')) refuse('key', 'a non-empty string or a function');
  }
  return options?.key;
}

/**
 * Refuses a checkpoint (`checkpoint()` of `pollite/resume`, a feature that
 * is also a `RunCheckpoint`) after the sharing `feature` in `call`'s `use`:
 * there it would run once for all the callers and tabs of the shared loop,
 * in whichever leads, rather than for its own caller. A check that only
 * helps a developer: call it behind the development guard.
 */
export function checkOrder(call: PollCall<unknown>, feature: PollFeature): void {
  const { use } = call.settings;
  if (use.slice(use.indexOf(feature) + 1).some((later) => typeof (later as Partial<RunCheckpoint>).begin === 'function')) {
    refuse('use', 'a list with `checkpoint()` before `share()` and `shareTabs()`: `use: [checkpoint(...), shareTabs()]`');
  }
}
