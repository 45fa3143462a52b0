import { numberIn, objectWith, retryAfterSeconds, fail } from './checks.js';
import type { Outage, ServerModel } from './server-model.js';

const SERVER_KEYS = ['capacity', 'overloadRetryAfter', 'outages', 'rateLimit', 'responseTime', 'jobDoneAt', 'bodyBytes'] as const;

/** Above this a body cannot be built as one string in V8 (about 512 MiB), let alone sent to a fleet. */
export const MAX_BODY_BYTES = 100_000_000;

function checkOutage(value: unknown, name: string): void {
  const outage = objectWith<Outage>(value, name, ['start', 'end', 'retryAfter']);
  const start = numberIn(outage.start, `${name}.start`, { min: 0 });
  numberIn(outage.end, `${name}.end`, { min: start });
  retryAfterSeconds(outage.retryAfter, `${name}.retryAfter`);
}

/**
 * Checks a {@link ServerModel} (the `server` option of `simulate`), naming
 * the first bad setting (`server.outages[1].end`) in a TypeError. Returns
 * the settings given, without their `undefined` entries: those keep the
 * scenario's value.
 */
export function checkServerModel(value: unknown, name = 'server'): ServerModel {
  const model = objectWith<ServerModel>(value, name, SERVER_KEYS);
  const given: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) if (model[key] !== undefined) given[key] = model[key];
  const { capacity, overloadRetryAfter, outages, rateLimit, responseTime, jobDoneAt, bodyBytes } = given as ServerModel;
  if (capacity !== undefined) numberIn(capacity, `${name}.capacity`, { min: 0, infinity: true });
  retryAfterSeconds(overloadRetryAfter, `${name}.overloadRetryAfter`);
  if (outages !== undefined) {
    if (!Array.isArray(outages)) fail(`${name}.outages`, 'an array of { start, end, retryAfter? }', outages);
    outages.forEach((outage, i) => checkOutage(outage, `${name}.outages[${i}]`));
  }
  if (rateLimit !== undefined) {
    const limit = objectWith<NonNullable<ServerModel['rateLimit']>>(rateLimit, `${name}.rateLimit`, ['rps', 'retryAfter']);
    numberIn(limit.rps, `${name}.rateLimit.rps`, { min: 0, infinity: true });
    retryAfterSeconds(limit.retryAfter, `${name}.rateLimit.retryAfter`);
  }
  if (responseTime !== undefined) numberIn(responseTime, `${name}.responseTime`, { min: 0 });
  if (jobDoneAt !== undefined) numberIn(jobDoneAt, `${name}.jobDoneAt`, { min: 0, infinity: true });
  if (bodyBytes !== undefined) {
    numberIn(bodyBytes, `${name}.bodyBytes`, { min: 0, integer: true, max: MAX_BODY_BYTES, why: 'every 2xx body is one string' });
  }
  return given as ServerModel;
}
