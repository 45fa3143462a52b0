import type { PollEvent, PollFeature } from '../index.js';
import { joinOrStart, runShared } from './share.js';
import { shareKey } from './share-key.js';
import { shareAcrossTabs, tabApis } from './tab-leader.js';

/**
 * One tab polls for all: like {@link share}, and across the tabs of the
 * origin too. One tab elected with Web Locks polls and broadcasts every
 * update over BroadcastChannel; the others send nothing (`share` events
 * say `leader` or `follower`). When the leader closes or is hidden, the
 * next visible tab takes over, its first request going out when the last
 * leader's next one was due (keeping a Retry-After or backoff wait). Where
 * Web Locks or BroadcastChannel are missing it shares within the realm, as
 * {@link share}. Bodies must be structured-cloneable (JSON is).
 *
 * @example
 * poll('/api/jobs/42', { use: [shareTabs()], isDone, onUpdate });
 */
export function shareTabs(): PollFeature {
  return {
    run(call, next) {
      const same = shareKey(call.request);
      if (same === undefined) return next(call);
      const apis = tabApis();
      return joinOrStart(`${apis ? 'tabs' : 'realm'} ${same}`, call, (loop) => {
        if (!apis) return void runShared(call, next, loop).catch((error: unknown) => loop.fail(error));
        const { settings } = call;
        const { env } = settings;
        let sentAt = 0;
        shareAcrossTabs(
          {
            name: same,
            env,
            pauseWhenHidden: settings.pauseWhenHidden,
            interval: settings.interval,
            stop: loop.stop.signal,
            lead: (signal, delay, publish, schedule) => {
              let first = delay > 0;
              const leader = {
                attach: () => ({
                  // The handover's wait, before the first request: the old leader's pending one.
                  hold: () => (first ? ((first = false), { event: { type: 'wait', delay, at: env.now() + delay } as PollEvent, ms: delay }) : undefined),
                  waiting: schedule,
                }),
              };
              const sink = {
                // Done once every caller here is: the loop then ends (rather than being aborted), and the lock is
                // held one interval more, so that the other tabs learn the final body before one of them can lead.
                update: async (data: unknown) => {
                  await publish(data, sentAt);
                  return loop.callers.size === 0;
                },
                event: (event: PollEvent) => {
                  if (event.type === 'request') sentAt = env.now();
                  loop.emit(event);
                },
              };
              return next({ ...call, settings: { ...settings, use: [...settings.use, leader] }, sink, signal, timeout: undefined });
            },
            deliver: async (data) => {
              await loop.sink.update(data);
            },
            fail: (error) => loop.fail(error),
            onRole: (role) => loop.emit({ type: 'share', role }),
          },
          apis,
        );
      });
    },
  };
}
