import { detachedFetch } from '../env/detached-fetch.js';
import { parseJson } from '../http/body.js';
import { refuse } from '../options/check.js';
import type { LocalReason } from '../engine/events.js';
import type { PollCall, PollFeature } from '../poll/feature.js';
import { shareKey } from './share-key.js';

/**
 * The `key` option of a sharing feature (`share()`, `shareTabs()`,
 * `cluster.share()`): a string, or a function of each call that returns
 * one. See `ShareOptions.key` in `pollite/cooperate`.
 */
export type ShareKeyOption = string | ((call: PollCall<unknown>) => string);

/** What a sharing feature shares a poll by. */
export interface ShareIdentity {
  /**
   * The key of its loop: the request (see `shareKey`), the fields of `init`
   * that fetch reads and differ from their defaults, then the `key` option,
   * or else the identity of each `fetch`, `parse`, `init` object and `run`
   * feature that is not the default (a number, this realm's own).
   */
  key: string;
  /** The first part that has no meaning beyond this realm (so no `key` was given): share only within it. */
  local?: LocalReason;
}

/** What fetch reads from `init` (or a Request input) besides method, headers and body, with the value it takes when none is given. */
const READ = { credentials: 'same-origin', mode: 'cors', cache: 'default', redirect: 'follow', integrity: '' } as const;
/**
 * Fields of `init` that change neither the answer nor who asks, or that the
 * request part holds. The Referer is not compared: tabs of one origin send
 * their own page's by default anyway, and it names no one.
 */
const IGNORED = new Set(['method', 'headers', 'body', 'signal', 'window', 'keepalive', 'priority', 'duplex', 'referrer', 'referrerPolicy']);

/** A number for each object or function: the same one for the same one, in this realm only. */
const ids = new WeakMap<object, number>();
const symbols = new Map<symbol, number>();
let count = 0;
const idOf = (value: object | symbol): number => {
  const known = typeof value === 'symbol' ? symbols.get(value) : ids.get(value);
  if (known !== undefined) return known;
  count += 1;
  if (typeof value === 'symbol') symbols.set(value, count);
  else ids.set(value, count);
  return count;
};

/** A plain value as it reads in a key, one line whatever it holds; undefined for an object, function or symbol. */
const literal = (value: unknown): string | undefined =>
  typeof value === 'string' ? JSON.stringify(value) : typeof value === 'bigint' ? `${value}n` : value === null || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;

/**
 * What makes two polls one poll, for a feature that shares a loop among
 * them: everything that changes what the server answers, who is asking, or
 * what the caller gets of it. The request's method, URL, headers and body
 * (see `shareKey`); what of `init` (or a Request input) fetch reads,
 * `credentials`, `mode`, `cache`, `redirect`, `integrity` and any other
 * field of plain value, where not the default; and, unless `key` vouches for
 * them, the caller's `fetch` (other than the global one), `parse` (other
 * than JSON), objects in `init` (Node's `dispatcher`) and features after
 * `feature` in `use` that run the loop, by identity: those are `local`,
 * meaning nothing beyond this realm. `undefined` when the body cannot be
 * compared (a stream, Blob, FormData): such a poll runs on its own.
 *
 * @example
 * const same = shareIdentity(call, { feature: mine });
 * if (same && !same.local) publishAcrossWorkers(same.key);
 */
export function shareIdentity(call: PollCall<unknown>, options: { key?: ShareKeyOption; feature?: PollFeature } = {}): ShareIdentity | undefined {
  if (shareKey(call.request) === undefined) return undefined;
  const { settings } = call;
  const [input, init] = call.request.args(null, undefined);
  const own = init as Record<string, unknown>;
  const request = input as unknown as Record<string, unknown>;
  let lines = '';
  const portable: Array<[string, unknown]> = [];
  for (const name of Object.keys(READ) as Array<keyof typeof READ>) {
    const value = own[name] ?? request[name];
    if (value !== undefined && value !== READ[name]) portable.push([name, value]);
  }
  for (const name of Object.keys(own).sort()) if (!IGNORED.has(name) && !(name in READ) && own[name] !== undefined) portable.push([`init.${name}`, own[name]]);
  const opaque: Array<[LocalReason, object | symbol]> = [];
  for (const [name, value] of portable) {
    const text = literal(value);
    if (text === undefined) opaque.push([(name.startsWith('init.') ? name : `init.${name}`) as LocalReason, value as object | symbol]);
    else lines += `\n@${JSON.stringify(name)} ${text}`;
  }
  if (settings.fetch !== (typeof globalThis.fetch === 'function' ? detachedFetch(globalThis.fetch) : undefined)) opaque.unshift(['fetch', settings.fetch]);
  if (settings.parse !== parseJson) opaque.push(['parse', settings.parse]);
  const { key, feature } = options;
  const from = feature ? settings.use.indexOf(feature) + 1 : 0;
  for (const later of settings.use.slice(from)) if (later !== feature && later.run) opaque.push(['use', later]);
  if (key !== undefined) {
    const given = typeof key === 'function' ? key(call) : key;
    if (typeof given !== 'string' || given === '') refuse('key', 'a non-empty string, or a function that returns one');
    return { key: shareKey(call.request, `${lines}\n@key ${JSON.stringify(given)}`)! };
  }
  for (const [name, value] of opaque) lines += `\n@${JSON.stringify(name)} #${idOf(value)}`;
  return { key: shareKey(call.request, lines)!, ...(opaque.length ? { local: opaque[0]![0] } : {}) };
}
