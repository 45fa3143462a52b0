import type { ServerModel } from './server-model.js';

const s = (ms: number): string => `${ms / 1000} s`;
const retryAfter = (seconds: number | null | undefined): string =>
  seconds == null ? 'without Retry-After' : `with Retry-After: ${seconds}`;

/**
 * One line saying what `server` does, from its actual settings: the
 * description of a scenario whose server model was customised (the named
 * scenario's own text would describe settings that no longer hold).
 *
 * @example
 * describeServer({ capacity: 750, outages: [{ start: 60_000, end: 90_000 }] });
 * // 'customised server: 503 without Retry-After from 60 s to 90 s; 750 req/s capacity'
 */
export function describeServer(server: ServerModel): string {
  const parts = (server.outages ?? []).map((o) => `503 ${retryAfter(o.retryAfter)} from ${s(o.start)} to ${s(o.end)}`);
  if (server.rateLimit) parts.push(`rate limit of ${server.rateLimit.rps} req/s: 429 with Retry-After: ${server.rateLimit.retryAfter ?? 1}`);
  if (server.capacity !== undefined && server.capacity !== Infinity) {
    const overload = server.overloadRetryAfter == null ? '' : ` (overload 503s say Retry-After: ${server.overloadRetryAfter})`;
    parts.push(`${server.capacity} req/s capacity${overload}`);
  }
  if (server.jobDoneAt !== undefined && server.jobDoneAt !== Infinity) parts.push(`a job that finishes at ${s(server.jobDoneAt)}`);
  if (server.responseTime !== undefined) parts.push(`${server.responseTime} ms per request`);
  if (server.bodyBytes !== undefined) parts.push(`${server.bodyBytes}-byte bodies`);
  return `customised server: ${parts.length === 0 ? 'no outage, no limit' : parts.join('; ')}`;
}
