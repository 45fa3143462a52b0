import { isNetworkUrl } from '../http/url-scheme.js';
import { CheckpointRefusedError } from './checkpoint-refused-error.js';

/** The format version this release writes and reads. */
export const CHECKPOINT_VERSION = 1;

/** The most characters a saved checkpoint may have, its kept `data` included (1 MiB of JSON); a longer one is refused as malformed. */
export const MAX_CHECKPOINT_CHARS = 1024 * 1024;

/** The most characters of a URL, an ETag, a Last-Modified or a key in a checkpoint. */
const MAX_FIELD = 8192;

/**
 * What a poll, an operation or a retried write saves to continue after a
 * reload, a crash or a deploy: what is needed to go on politely, and
 * nothing secret. Never a header value (but the validators and the
 * `Idempotency-Key`), a cookie, a request body, or a response body the
 * caller did not ask to keep (`data`). JSON, versioned (`v`); a stored
 * checkpoint is untrusted input, read by {@link readCheckpoint}.
 */
export interface Checkpoint {
  /** The format: 1. Another version is refused (`reason: 'version'`). */
  v: 1;
  /** The call that saved it: `poll`, `pollOperation` (`operation`) or `fetchWithRetry` (`fetch`). */
  kind: 'poll' | 'operation' | 'fetch';
  /** The origin of `request.url` (`https://api.example.com`): a call to another origin refuses the checkpoint. */
  origin: string;
  /** SHA-256 (hex) of the `owner` the call was made for, never the owner itself; absent when none was given. */
  owner?: string;
  /** The request that began the call: its method and absolute URL (an operation's start, not its monitor). */
  request: {
    /** The method, upper-cased. */
    method: string;
    /** The absolute http or https URL. */
    url: string;
  };
  /** The URL being polled: a poll's own; an operation's monitor, once its start named it. */
  url?: string;
  /** An operation's monitor: what named it (a header, or `option`), and the start answer's `Location`, to find the result. */
  monitor?: {
    /** What named the monitor: a header of the start's answer, or `option` (`operationUrl`). */
    via: 'operation-location' | 'azure-asyncoperation' | 'location' | 'option';
    /** The start answer's `Location`, resolved, if it had one. */
    location?: string;
  };
  /** The `ETag` of the last 2xx whose body is kept in `data`. */
  etag?: string;
  /** The `Last-Modified` of the last 2xx whose body is kept in `data`. */
  lastModified?: string;
  /** Failures in a row counted so far. */
  failures: number;
  /** Epoch ms before which nothing is sent: the next attempt as the stopped run had scheduled it, never before the server's wait (Retry-After, a rate-limit reset, a cooldown). */
  notBefore?: number;
  /** Epoch ms of the call's deadline (`timeout`), kept across restarts. */
  deadline?: number;
  /** The `Idempotency-Key` a write (a POST, a PATCH, an operation's start) was sent with: sent again with it, never a new one. */
  idempotencyKey?: string;
  /** The write (a fetch's request, an operation's start) was sent, or about to be, and its answer is not known yet. */
  sent?: boolean;
  /** The last parsed 2xx body, only when the caller asked for it (`data: true`). */
  data?: unknown;
  /** Epoch ms it was last written. */
  savedAt: number;
}

const KINDS: ReadonlySet<string> = new Set(['poll', 'operation', 'fetch']);
const VIAS: ReadonlySet<string> = new Set(['operation-location', 'azure-asyncoperation', 'location', 'option']);

/** An http or https URL (`isNetworkUrl`: a URL a store hands back is trusted no more than one a server names), whole, of at most MAX_FIELD characters. */
export const isHttpUrl = (value: unknown): value is string => {
  if (typeof value !== 'string' || value.length > MAX_FIELD) return false;
  try {
    return isNetworkUrl(new URL(value));
  } catch {
    return false;
  }
};

const isText = (value: unknown, max = MAX_FIELD): value is string => typeof value === 'string' && value !== '' && value.length <= max;
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < 8.64e15;
const optional = (value: unknown, test: (v: unknown) => boolean): boolean => value === undefined || test(value);

/** The first field of `c` that is not as {@link Checkpoint} says, or `undefined` when all are. */
function badField(c: Record<string, unknown>): string | undefined {
  const request = c.request as Record<string, unknown> | null | undefined;
  const monitor = c.monitor as Record<string, unknown> | null | undefined;
  const checks: Array<[string, boolean]> = [
    ['kind', KINDS.has(c.kind as string)],
    ['origin', isHttpUrl(c.origin) && new URL(c.origin).origin === c.origin],
    ['owner', optional(c.owner, (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v))],
    ['request', typeof request === 'object' && request !== null && isText(request.method, 32) && /^[A-Z]+$/.test(request.method) && isHttpUrl(request.url)],
    ['url', optional(c.url, isHttpUrl)],
    ['monitor', optional(c.monitor, () => typeof monitor === 'object' && monitor !== null && VIAS.has(monitor.via as string) && optional(monitor.location, isHttpUrl))],
    ['etag', optional(c.etag, isText)],
    ['lastModified', optional(c.lastModified, isText)],
    ['failures', Number.isInteger(c.failures) && (c.failures as number) >= 0 && (c.failures as number) <= 1_000_000],
    ['notBefore', optional(c.notBefore, isTime)],
    ['deadline', optional(c.deadline, isTime)],
    ['idempotencyKey', optional(c.idempotencyKey, (v) => isText(v, 255))],
    ['sent', optional(c.sent, (v) => typeof v === 'boolean')],
    ['savedAt', isTime(c.savedAt)],
  ];
  // An operation's monitor comes with what named it, or not at all.
  checks.push(['monitor', c.kind !== 'operation' || (c.url === undefined) === (c.monitor === undefined)]);
  return checks.find(([, ok]) => !ok)?.[0];
}

/**
 * Reads a checkpoint saved under `key` (its JSON text, as a store gives it
 * back) as untrusted input: bounded in size, every field checked, every URL
 * http or https. Throws a {@link CheckpointRefusedError}: `version` for a
 * format this release does not read, `malformed` for anything else that is
 * not a checkpoint. Never returns fields it did not check.
 *
 * @example
 * const saved = await store.get('report');
 * if (saved != null) console.log(readCheckpoint(saved, 'report').notBefore);
 */
export function readCheckpoint(text: string, key: string): Checkpoint {
  const malformed = (detail: string): CheckpointRefusedError => new CheckpointRefusedError('malformed', key, detail);
  if (typeof text !== 'string') throw malformed(`the store gave back a ${typeof text}, not a string`);
  if (text.length > MAX_CHECKPOINT_CHARS) throw malformed(`it is ${text.length} characters long, more than the ${MAX_CHECKPOINT_CHARS} a checkpoint may be`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed('it is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed('it is not a JSON object');
  const c = value as Record<string, unknown>;
  if (c.v !== CHECKPOINT_VERSION) {
    throw new CheckpointRefusedError('version', key, `it is in format ${JSON.stringify(c.v)?.slice(0, 20) ?? 'none'}, and this release of pollite reads format ${CHECKPOINT_VERSION} only`);
  }
  const bad = badField(c);
  if (bad) throw malformed(`its \`${bad}\` is not valid`);
  const request = c.request as Checkpoint['request'];
  const monitor = c.monitor as Checkpoint['monitor'];
  const fields: Checkpoint = {
    v: CHECKPOINT_VERSION,
    kind: c.kind as Checkpoint['kind'],
    origin: c.origin as string,
    request: { method: request.method, url: request.url },
    failures: c.failures as number,
    savedAt: c.savedAt as number,
  };
  // Only the fields checked above, copied one by one: nothing else a store holds reaches the call.
  for (const name of ['owner', 'url', 'etag', 'lastModified', 'notBefore', 'deadline', 'idempotencyKey', 'sent', 'data'] as const) {
    if (c[name] !== undefined) (fields as unknown as Record<string, unknown>)[name] = c[name];
  }
  if (monitor) fields.monitor = monitor.location === undefined ? { via: monitor.via } : { via: monitor.via, location: monitor.location };
  return fields;
}
