import { parseGrpcPushback } from './grpc-pushback.js';
import { retryAfterMs, type HeaderReader } from './parse-retry-after.js';
import { parsePollInterval } from './poll-interval.js';
import { rateLimitRemaining, rateLimitReset } from './rate-limit.js';
import { rateLimitQuota } from './rate-limit-field.js';
import { parseRetryAfterMs } from './retry-after-ms.js';

/**
 * Which of the server's signals set a wait, as the `wait` and `retry`
 * events name it (`source`):
 *
 * - `retry-after`: `Retry-After` (seconds or an HTTP-date);
 * - `retry-after-ms`: `retry-after-ms` (OpenAI, Anthropic) or
 *   `x-ms-retry-after-ms` (Azure), which replace `Retry-After` when valid
 *   (the same instruction, to the millisecond);
 * - `ratelimit`: a rate-limit reset (`RateLimit`, `RateLimit-Reset`,
 *   `X-RateLimit-Reset`, `X-RateLimit-Retry-After`) on a 429 or with
 *   nothing left, or after a 2xx the window's rest spread over the
 *   requests left in it;
 * - `x-poll-interval`: GitHub's `X-Poll-Interval` on a 2xx or 304;
 * - `grpc-pushback`: gRPC's and Connect's `grpc-retry-pushback-ms`;
 * - `body`: a JSON error body's hint (`google.rpc.RetryInfo`,
 *   `retry_after`) on a 429 or 503.
 */
export type WaitSource = 'retry-after' | 'retry-after-ms' | 'ratelimit' | 'x-poll-interval' | 'grpc-pushback' | 'body';

/** What the server said about when to come back: the longest of its signals, and which one that was. */
export interface ServerSaid {
  /** How long to stay away, ms, uncapped (perhaps `Infinity`); 0 with `stop`. */
  ms: number;
  /** The signal that asked for it. */
  source: WaitSource;
  /** The server asked not to retry at all (a negative `grpc-retry-pushback-ms`). */
  stop?: true;
}

/**
 * Whether `headers` may say when to come back: false only for a `Headers`
 * without a name any signal uses. Most answers say nothing, and one pass
 * over the (lower-cased) names costs a fraction of the reads it saves
 * (each `Headers.get` checks its name char by char).
 */
const maySay = (headers: HeaderReader): boolean => {
  if (!(headers instanceof Headers)) return true;
  for (const name of headers.keys()) if (name.includes('retry') || name.includes('ratelimit') || name === 'x-poll-interval') return true;
  return false;
};

/**
 * What the server said about when to come back, or `null` when it said
 * nothing: the longest of every signal it sent, each a floor (so none is
 * ever undercut), uncapped, with the one that spoke:
 *
 * - on any answer, `retry-after-ms` or `x-ms-retry-after-ms` when valid,
 *   else `Retry-After`;
 * - on a 429, or when no request is left in the window, the reset its
 *   rate-limit headers announce (of several quotas in one `RateLimit`
 *   field, the one that binds: see `rateLimitQuota`);
 * - on a 2xx or 304 with requests left, the rest of the window spread over
 *   them: `reset / (remaining + 1)`, the slowest of every quota of a
 *   `RateLimit` list, so a poller slows before its 429, not after; and
 *   GitHub's `X-Poll-Interval`;
 * - on a failure, gRPC's `grpc-retry-pushback-ms` (a negative one: `stop`);
 * - `body`: the hint of the answer's body, when the caller read one
 *   (see `readBodyWait`).
 */
export function serverSays(status: number, headers: HeaderReader, now: number, body: number | null = null): ServerSaid | null {
  let said: ServerSaid | null = body === null ? null : { ms: body, source: 'body' };
  if (!maySay(headers)) return said;
  const longer = (ms: number | null, source: WaitSource): void => {
    if (ms !== null && !(said && said.ms >= ms)) said = { ms, source };
  };
  const ok = status < 400;
  const precise = parseRetryAfterMs(headers.get('retry-after-ms') ?? headers.get('x-ms-retry-after-ms'));
  longer(precise ?? retryAfterMs(headers.get('retry-after'), now), precise === null ? 'retry-after' : 'retry-after-ms');
  if (ok) longer(parsePollInterval(headers.get('x-poll-interval')), 'x-poll-interval');
  else {
    const pushback = parseGrpcPushback(headers.get('grpc-retry-pushback-ms'));
    if ((pushback ?? 0) < 0) return { ms: 0, source: 'grpc-pushback', stop: true };
    longer(pushback, 'grpc-pushback');
  }
  const quota = rateLimitQuota(headers.get('ratelimit') ?? '');
  // The reset is read only when it counts: most answers say nothing of a limit, and every header read costs.
  // A 429 waits for the whole reset, however many requests the field says are left.
  const left = status === 429 ? 0 : rateLimitRemaining(headers, quota);
  if (left !== null && (ok || left === 0)) {
    const reset = rateLimitReset(headers, quota, now, Infinity);
    if (reset !== null) longer(reset / (left + 1), 'ratelimit');
    // Of several quotas, the slowest pace binds a 2xx too: one request left of a day's quota outweighs a fresh burst.
    if (ok && quota.pace !== null) longer(quota.pace * 1000, 'ratelimit');
  }
  return said;
}

/**
 * How long the server asked us to stay away, ms, uncapped; `null` when it
 * did not say (or asked not to be retried at all): the `ms` of
 * {@link serverSays}, for callers that need no source.
 */
export function serverWait(status: number, headers: HeaderReader, now: number): number | null {
  const said = serverSays(status, headers, now);
  return said && !said.stop ? said.ms : null;
}
