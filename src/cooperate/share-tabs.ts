import type { PollEvent } from '../index.js';
import { sha256Hex, shareIdentity, type PollCall, type PollFeature, type PollRunner, type SharedLoop } from '../kit/index.js';
import { realmLoops, shareInRealm } from './share.js';
import { checkOrder, checkShareKey, type ShareOptions } from './share-options.js';
import { shareAcrossTabs, tabApis, type TabApis } from './tab-leader.js';

/** Runs `loop` for the tabs of the origin under the Web Lock and BroadcastChannel `name`, with `call`'s options. */
function leadOrFollow(name: string, call: PollCall<unknown>, next: PollRunner, loop: SharedLoop, apis: TabApis): void {
  const { settings } = call;
  const { env } = settings;
  let sentAt = 0;
  shareAcrossTabs(
    {
      name,
      env,
      pauseWhenHidden: settings.pauseWhenHidden,
      interval: settings.interval,
      // What the last leader said was pending is taken at most as long as this tab would wait of its own.
      longestWait: Math.max(settings.maxRetryAfter, settings.interval),
      stop: loop.signal,
      lead: (signal, delay, publish, schedule) => {
        // The handover's wait, before the first request: until the old leader's pending one was due (a
        // checkpoint's hold of the same wait may come first: what is left of it then, not all of it again).
        let until = env.now() + delay;
        const leader = {
          attach: () => ({
            hold: () => {
              const ms = until - env.now();
              until = 0;
              return ms > 0 ? { event: { type: 'wait', delay: ms, at: env.now() + ms } as PollEvent, ms } : undefined;
            },
            waiting: schedule,
          }),
        };
        const sink = {
          // Done once every caller here is: the loop then ends (rather than being aborted), and the lock is
          // held one interval more, so that the other tabs learn the final body before one of them can lead.
          update: async (data: unknown) => {
            await publish(data, sentAt);
            return loop.size === 0;
          },
          event: (event: PollEvent) => {
            if (event.type === 'request') sentAt = env.now();
            // A wait announced to end no sooner (a checkpoint's hold) is this one: once over, not held again for a timer's ms.
            else if (event.type === 'wait' && event.at >= until) until = 0;
            loop.sink.event(event);
          },
        };
        return next({ ...call, settings: { ...settings, use: [...settings.use, leader] }, sink, signal, timeout: undefined });
      },
      deliver: async (data) => {
        await loop.sink.update(data);
      },
      fail: (error) => loop.fail(error),
      onRole: (role) => loop.sink.event({ type: 'share', role }),
    },
    apis,
  );
}

/**
 * One tab polls for all: like {@link share}, and across the tabs of the
 * origin too. One tab elected with Web Locks polls and broadcasts every
 * update over BroadcastChannel; the others send nothing (`share` events
 * say `leader` or `follower`). When the leader closes or is hidden, the
 * next visible tab takes over, its first request going out when the last
 * leader's next one was due (keeping a Retry-After or backoff wait, up to
 * its own `maxRetryAfter` or interval). The lock and the channel are named
 * by a SHA-256 of the poll's identity, so no URL, header or key is in a
 * name. A poll with a `fetch`, `parse`, object in `init` (Node's
 * `dispatcher`) or feature after this one of its own shares across tabs
 * only under a `key` that says it is the same in every tab (see
 * {@link ShareOptions}): without one, it shares within its tab, as
 * {@link share}, and its callers hear a `share` event with the role `local`
 * and the reason. Where Web Locks, BroadcastChannel or SHA-256 (a secure
 * context) are missing it shares within the realm, as {@link share}.
 * Bodies must be structured-cloneable (JSON is). A checkpoint of
 * `pollite/resume` goes before it (`use: [checkpoint(...), shareTabs()]`:
 * the tabs that resume it poll once for all); after it, it is refused.
 *
 * @example
 * poll('/api/jobs/42', { use: [shareTabs()], isDone, onUpdate });
 */
export function shareTabs(options?: ShareOptions): PollFeature {
  const key = checkShareKey(options);
  const feature: PollFeature = {
    run(call, next) {
      if (typeof __DEV__ === 'undefined' || __DEV__) checkOrder(call, feature);
      const same = shareIdentity(call, { key, feature });
      if (!same) return next(call);
      if (same.local) {
        call.sink.event({ type: 'share', role: 'local', reason: same.local });
        return shareInRealm(same.key, call, next);
      }
      const apis = tabApis();
      if (!apis) return shareInRealm(same.key, call, next);
      return realmLoops.join(`tabs ${same.key}`, call, (loop) => {
        sha256Hex(same.key).then(
          (name) => loop.signal.aborted || leadOrFollow(name, call as PollCall<unknown>, next, loop, apis),
          (error: unknown) => loop.fail(error),
        );
      });
    },
  };
  return feature;
}
