import { createSharedLoops, shareIdentity, type PollCall, type PollFeature, type PollRunner } from '../kit/index.js';
import type { LocalReason } from '../engine/events.js';
import { checkOrder, checkShareKey, type ShareOptions } from './share-options.js';

/** The realm's shared loops: `share()`'s under `realm <key>`, `shareTabs()`'s under `tabs <key>` (see {@link shareIdentity}). */
export const realmLoops = /* @__PURE__ */ createSharedLoops();

/** Shares `call`'s loop within this realm under `key`: joins it, or starts it with this caller's options. */
export const shareInRealm = <T>(key: string, call: PollCall<T>, next: PollRunner): Promise<T> => realmLoops.join(`realm ${key}`, call, (loop) => loop.run(call, next));

/** The keys of `share()`'s running loops, by URL: what tells a caller that starts a second loop of a URL why it could not join. */
const byUrl = new Map<string, Set<string>>();

/**
 * `share()`'s part of {@link shareInRealm}: says each caller's role (a
 * `share` event), and why a caller that starts a loop of a URL another loop
 * already polls could not join it (`apart`).
 */
function shareSaying<T>(same: { key: string; local?: LocalReason }, call: PollCall<T>, next: PollRunner): Promise<T> {
  const { url } = call.request;
  let started = false;
  const joined = realmLoops.join(`realm ${same.key}`, call, (loop) => {
    started = true;
    const keys = byUrl.get(url) ?? new Set<string>();
    const apart = keys.size ? (same.local ?? 'request') : undefined;
    keys.add(same.key);
    byUrl.set(url, keys);
    loop.signal.addEventListener('abort', () => {
      keys.delete(same.key);
      if (!keys.size && byUrl.get(url) === keys) byUrl.delete(url);
    });
    call.sink.event({ type: 'share', role: 'leader', ...(apart && { apart }) });
    loop.run(call, next);
  });
  if (!started) call.sink.event({ type: 'share', role: 'follower' });
  return joined;
}

/**
 * Shares one request loop among the polls of this realm that would get the
 * same answer: the same method, URL, headers and body (a string or
 * URLSearchParams; a request whose body is a stream, Blob or FormData polls
 * on its own), the same `credentials`, `mode`, `cache`, `redirect` and
 * `integrity`, and the same `fetch`, `parse`, objects in `init` (Node's
 * `dispatcher`) and features after this one that run the loop, compared by
 * identity (two `fetch` wrappers that add different users' tokens are two
 * loops) unless `key` says they are the same (see {@link ShareOptions}).
 * Each caller keeps its own `isDone`, `onUpdate`, `onEvent`, `signal` and
 * `timeout`; one caller's throwing callback settles that caller alone. The
 * loop runs with the options of the caller that started it and stops when
 * its last caller is done or aborted; a caller joining a running loop gets
 * its latest body at once. An error of the loop (a 404, giving up) rejects
 * every caller. A checkpoint of `pollite/resume` goes before it; after it,
 * it is refused.
 *
 * @example
 * poll('/api/jobs/42', { use: [share()], isDone, onUpdate });
 */
export function share(options?: ShareOptions): PollFeature {
  const key = checkShareKey(options);
  const feature: PollFeature = {
    run(call, next) {
      if (typeof __DEV__ === 'undefined' || __DEV__) checkOrder(call, feature);
      const same = shareIdentity(call, { key, feature });
      return same ? shareSaying(same, call, next) : next(call);
    },
  };
  return feature;
}
