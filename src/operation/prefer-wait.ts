import type { PollEvent } from '../engine/events.js';
import type { LoopHooks } from '../engine/hooks.js';
import type { RequestFactory } from '../http/request.js';
import { refuse, type Check } from '../options/check.js';
import type { PollFeature } from '../poll/feature.js';
import { ignoreEvents } from '../poll/poll-loop.js';
import { appliesWait, withPreferences } from './prefer.js';

/** `preferWait`'s check: a whole number of seconds (what `wait=N` can say), in ms, that a timer can count. */
export const preferWaitCheck: Check = [
  (v) => Number.isInteger(v) && (v as number) >= 1000 && (v as number) % 1000 === 0 && (v as number) <= 2_147_483_000,
  'a whole number of seconds > 0, in ms (10_000 for 10 s)',
];

/** `request` with `Prefer` asking for `preference` too (over the caller's own `Prefer`, which keeps what it states). */
function preferring(request: RequestFactory, preference: string): RequestFactory {
  const prefer = withPreferences(request.headers.prefer, [preference]);
  return {
    ...request,
    headers: { ...request.headers, prefer },
    args(since, signal) {
      const [input, init] = request.args(since, signal);
      const headers = new Headers(init.headers);
      headers.set('prefer', prefer);
      return [input, { ...init, headers }];
    },
  };
}

/**
 * Asks the server to hold each status request until something changes, `ms`
 * at most (RFC 7240 `Prefer: wait=N`, N = `ms` / 1000), and paces the poll
 * by the hold where the server says it applied it: one pending request
 * instead of a poll every interval. As a feature of `poll`, before any
 * sharing feature in `use` (so the polls it shares carry the header):
 *
 * - every request carries `Prefer: wait=N` (added to a `Prefer` of your
 *   own; one that already states `wait` is left as it is);
 * - after a 2xx or 304 with `Preference-Applied: wait`, the time the server
 *   held the request counts toward the wait after it: the next request goes
 *   once `interval` has passed since the held one was sent, at once when
 *   the hold lasted that long. Requests never start more often than one per
 *   `interval`, and every floor still holds: a Retry-After, a rate limit,
 *   a throttled pace, a cooldown, the retry backoff;
 * - an answer without it (the server ignores the preference, a proxy took
 *   it off, a browser cannot read it across origins without
 *   `Access-Control-Expose-Headers`) is paced as without this feature;
 * - `requestTimeout`, when given, is extended by `ms`: a request the
 *   server holds is not timed out for it; the total `timeout` is not;
 * - its `request` events carry `held: ms` while the server applies it: a
 *   UI can show "waiting on the server" rather than a slow request.
 *
 * `Prefer` is not a CORS-safelisted header: a browser sends a preflight
 * before a cross-origin request that carries it, and fails the request if
 * the server does not allow it (`Access-Control-Allow-Headers: Prefer`).
 * `pollOperation` takes it as `operation.preferWait`.
 *
 * @example
 * poll('/api/jobs/42', { use: [preferWait(10_000)], isDone });
 */
export function preferWait(ms: number): PollFeature {
  if ((typeof __DEV__ === 'undefined' || __DEV__) && !preferWaitCheck[0](ms)) refuse('preferWait', preferWaitCheck[1]);
  return {
    run(call, next) {
      const { settings, sink } = call;
      let sentAt = 0;
      let applied = false;
      const hooks: LoopHooks = {
        // Asked before each attempt, last of every hold (this feature's hooks join last): when the request leaves.
        hold() {
          sentAt = settings.env.now();
          return undefined;
        },
        answer({ headers }) {
          applied = appliesWait(headers);
        },
        // Last of the paces, so it shortens the wait every other feature chose; the engine's floors come after it.
        pace: (wait, { at }) => (applied ? Math.max(0, wait - (at - sentAt)) : wait),
      };
      const event = (e: PollEvent): void => sink.event(e.type === 'request' && applied ? { ...e, held: ms } : e);
      return next({
        ...call,
        request: preferring(call.request, `wait=${ms / 1000}`),
        settings: {
          ...settings,
          ...(settings.requestTimeout !== undefined && { requestTimeout: settings.requestTimeout + ms }),
          use: [...settings.use, { attach: () => hooks }],
        },
        sink: sink.event === ignoreEvents ? sink : { update: (data) => sink.update(data), event },
      });
    },
  };
}
