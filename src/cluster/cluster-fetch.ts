import { sleep, spread } from '../kit/index.js';
import { CLUSTER_DEFAULTS, CLUSTER_OPTION_NAMES, checkObject, positive, refuse, type ClusterFetchOptions } from './cluster-options.js';
import { Honoured, type CooldownBoard } from './cooldown-board.js';

const urlOf = (input: string | URL | Request): URL | undefined => {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  return URL.canParse(href) ? new URL(href) : undefined;
};

/**
 * A `fetch` that takes part in the cluster cooldown, for `fetchWithRetry`
 * (`retry: { fetch }`) and inside `retry`'s function: before sending, waits
 * out the cooldowns other processes announced for the origin (503) or
 * route (429), capped at `maxRetryAfter` plus the spread, abortably by the
 * request's signal; after, announces the cooldown its answer asks for.
 * One per call: it remembers which cooldowns it waited out, so a capped
 * one is waited once, as the realm's cooldown does.
 */
export function cooldownFetch(board: CooldownBoard, options: ClusterFetchOptions = {}): typeof fetch {
  checkObject(options, CLUSTER_OPTION_NAMES.fetch);
  const maxRetryAfter = positive('maxRetryAfter', options.maxRetryAfter, 0, CLUSTER_DEFAULTS.maxRetryAfter);
  if (options.fetch !== undefined && typeof options.fetch !== 'function') refuse('fetch', 'a function');
  const send = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const honoured = new Honoured();
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = urlOf(input);
    if (url) {
      const cooling = await board.look(url, honoured);
      if (cooling) {
        honoured.add(cooling.id);
        await sleep(spread(cooling.ms, Math.random(), maxRetryAfter), init?.signal ?? (input instanceof Request ? input.signal : undefined));
      }
    }
    const response = await send(input, init);
    if (url && typeof response?.status === 'number' && response.headers) void board.note(url, response.status, response.headers, Date.now());
    return response;
  };
}
