import type { Arrival } from './recorded-server.js';

// What a server told a client about when to come back, read from the answer
// it wrote, in every dialect, WITHOUT pollite's parsers: the test must be able
// to catch them misreading a header.

/** Epoch seconds past this are a point in time; below, seconds to go. */
const EPOCH = 1e9;

const num = (text: string | undefined): number | undefined => (text !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : undefined);

/** `key=value` in a draft-7 dictionary or a draft-8 item's parameters. */
const param = (field: string | undefined, key: string): string | undefined => (field ? new RegExp(`(?:^|[;,])\\s*${key}=([\\d.]+)`).exec(field)?.[1] : undefined);

/** The reset the rate-limit headers announce, epoch ms, measured from `base` (the request's arrival, never after the limiter's own clock). */
export function announcedReset(headers: Record<string, string>, base: number): number | undefined {
  const relative = num(param(headers.ratelimit, 't')) ?? num(param(headers.ratelimit, 'reset')) ?? num(headers['ratelimit-reset']);
  if (relative !== undefined) return base + relative * 1000;
  const legacy = num(headers['x-ratelimit-reset']);
  if (legacy === undefined) return undefined;
  return legacy > EPOCH ? legacy * 1000 : base + legacy * 1000;
}

/** Requests left in the window, as the headers say. */
export function announcedRemaining(headers: Record<string, string>): number | undefined {
  return num(param(headers.ratelimit, 'r')) ?? num(param(headers.ratelimit, 'remaining')) ?? num(headers['ratelimit-remaining']) ?? num(headers['x-ratelimit-remaining']);
}

/** The Retry-After, epoch ms, from `base`: delay-seconds or an HTTP-date. */
export function retryAfterUntil(headers: Record<string, string>, base: number): number | undefined {
  const value = headers['retry-after'];
  if (value === undefined) return undefined;
  const seconds = num(value);
  if (seconds !== undefined) return base + seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date;
}

/**
 * Until when a 429 or 503 told its client to stay away, epoch ms: the
 * later of its Retry-After and its announced reset; `undefined` for any
 * other answer, or one that said nothing.
 */
export function toldUntil(arrival: Arrival): number | undefined {
  if (arrival.status !== 429 && arrival.status !== 503) return undefined;
  const times = [retryAfterUntil(arrival.headers, arrival.at), announcedReset(arrival.headers, arrival.at)].filter((t): t is number => t !== undefined);
  return times.length ? Math.max(...times) : undefined;
}

/** Until when a 2xx that spent the window's last request ("remaining: 0") said the next one would be refused, epoch ms. */
export function exhaustedUntil(arrival: Arrival): number | undefined {
  if (arrival.status < 200 || arrival.status >= 300 || announcedRemaining(arrival.headers) !== 0) return undefined;
  return announcedReset(arrival.headers, arrival.at);
}

/** A request that came before the time its client was told. */
export interface EarlyRequest {
  client: string;
  at: number;
  until: number;
  /** How early, ms. */
  by: number;
}

/**
 * Every request of a client that arrived before a time an earlier answer
 * to that client told it (`until`), in arrival order. A fractional epoch
 * reset is compared at the millisecond the arrival clock has.
 */
export function earlyRequests(arrivals: readonly Arrival[], until: (arrival: Arrival) => number | undefined = toldUntil): EarlyRequest[] {
  const byClient = new Map<string, Arrival[]>();
  for (const a of arrivals) if (a.client !== undefined) byClient.set(a.client, [...(byClient.get(a.client) ?? []), a]);
  const early: EarlyRequest[] = [];
  for (const [client, list] of byClient) {
    let told = -Infinity;
    for (const a of [...list].sort((x, y) => x.at - y.at)) {
      if (a.at < Math.floor(told)) early.push({ client, at: a.at, until: told, by: Math.floor(told) - a.at });
      told = Math.max(told, until(a) ?? -Infinity);
    }
  }
  return early;
}
