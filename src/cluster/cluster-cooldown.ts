import { spread, type PollFeature } from '../kit/index.js';
import { Honoured, type CooldownBoard } from './cooldown-board.js';

/**
 * The cluster cooldown as a poll feature: before each request, asks Redis
 * whether another process was told to stay away from this origin (503) or
 * route (429), and holds until then (capped at this poll's
 * `maxRetryAfter`, plus the spread, so the cluster returns over a window,
 * not in lockstep); tells Redis of each 429/503 this loop meets. Redis
 * failing or slow costs at most one deadline: the loop then goes on with
 * the realm's own cooldown only.
 */
export function cooldownFeature(board: CooldownBoard): PollFeature {
  return {
    attach({ request, settings }) {
      if (!URL.canParse(request.url)) return undefined;
      const url = new URL(request.url);
      const { env, maxRetryAfter } = settings;
      const honoured = new Honoured();
      board.prepare(url);
      return {
        async hold() {
          const cooling = await board.look(url, honoured);
          if (!cooling) return undefined;
          honoured.add(cooling.id);
          const delay = spread(cooling.ms, env.random(), maxRetryAfter);
          return { event: { type: 'cooldown', delay, at: env.now() + delay, origin: url.origin }, ms: delay };
        },
        answer({ status, headers, at }) {
          void board.note(url, status, headers, at);
        },
      };
    },
  };
}
