import { detachedFetch } from '../env/detached-fetch.js';
import { resolveEnvironment } from '../env/environment.js';
import { parseJson } from '../http/body.js';
import { boolean, checkNames, count, definedOptions, duration, func, object, positiveDuration, refuse, signal, validateOptions } from '../options/check.js';
import { REQUEST_INIT_NAMES } from '../options/request-init-names.js';
import { POLL_DEFAULTS, pollBackoff } from './defaults.js';
import type { PollSettings } from './feature.js';
import type { PollEvent } from '../engine/events.js';
import type { PollOptions } from './poll-options.js';

/** {@link PollOptions} after validation: the loop's settings and the caller's own parts. */
export interface NormalizedPollOptions<T> {
  settings: PollSettings;
  isDone: (data: T) => boolean | Promise<boolean>;
  onUpdate: ((data: T) => unknown) | undefined;
  onEvent: ((event: PollEvent) => void) | undefined;
  signal: AbortSignal | undefined;
  timeout: number | undefined;
}

const feature = [(v: unknown) => Array.isArray(v) && v.every((f) => typeof f === 'object' && f !== null), 'an array of features'] as const;

const SPEC = {
  isDone: func,
  onUpdate: func,
  onEvent: func,
  signal,
  interval: duration,
  retries: count,
  backoff: func,
  maxRetryAfter: duration,
  timeout: positiveDuration,
  requestTimeout: positiveDuration,
  pauseWhenHidden: boolean,
  pauseWhenOffline: boolean,
  cooldown: boolean,
  conditional: boolean,
  parse: func,
  init: object,
  fetch: func,
  use: feature,
  env: object,
} as const;

/** Options that moved: refused by name, so nobody loses a behaviour silently. */
const MOVED: Record<string, string> = {
  maxAttempts: '`retries` (the same number: failures in a row that are tried again)',
  share: '`use: [share()]` or `use: [shareTabs()]`',
  pauseWhenBlurred: '`use: [pauseWhenBlurred()]`',
};
const COOPERATE = " from 'pollite/cooperate'";

/** Where a name poll does not read belongs: a moved option's new form, or `init` for fetch's own fields. */
const elsewhere = (name: string): string | undefined =>
  Object.hasOwn(MOVED, name) ? `given as ${MOVED[name]}${name === 'maxAttempts' ? '' : COOPERATE}` : REQUEST_INIT_NAMES.includes(name) ? `given as \`init.${name}\`` : undefined;

/** The names `poll` reads, or refuses in its own words (those that moved): for a caller that passes the rest of its options on to it (pollOperation). */
export const pollOptionNames = (): string[] => [...Object.keys(SPEC), ...Object.keys(MOVED)];

let warnedEndless = false;

/**
 * Says once per realm, in development, that a poll can only end by failing:
 * without `isDone`, a `signal` (its own, `init`'s or a Request's) or a
 * `timeout`, it polls until the page or process ends. Not refused: a
 * dashboard may poll for ever, and `isDone: () => false` says so.
 */
export function warnIfEndless<T>(options: PollOptions<T> | undefined, signal: AbortSignal | undefined): void {
  if (warnedEndless || signal || options?.isDone || options?.timeout !== undefined) return;
  warnedEndless = true;
  console.warn(
    'pollite: poll() without `isDone`, `signal` or `timeout` polls until the page or process ends. Pass a `signal` to stop it, or `isDone: () => false` to poll for ever on purpose.',
  );
}

const isStream = (body: unknown): boolean => typeof (body as ReadableStream | null)?.getReader === 'function';

/**
 * Refuses the first bad name or value of `poll`'s options with a
 * `TypeError`; `path` places the names when the options are nested in
 * another call's (`'operation.'`: ``Expected `operation.interval` to be…``).
 * Development only: call it behind the guard (src/options/dev.d.ts).
 */
export function checkPollOptions<T>(options: PollOptions<T> | undefined, path: string): void {
  if (typeof options?.interval === 'object') refuse(`${path}interval`, `a number: a range is \`use: [paceByData({ min, max })]\`${COOPERATE}`);
  validateOptions(options, SPEC, { elsewhere, path });
  // fetch's own fields, when it is the global fetch: another fetch (node-fetch's `agent`...) may read any.
  if (options?.fetch === undefined || options.fetch === globalThis.fetch) checkNames(options?.init, REQUEST_INIT_NAMES, { path: 'init.' });
}

/** Validates every option once, naming the first bad one in a `TypeError`. */
export function normalizePollOptions<T>(options: PollOptions<T> | undefined): NormalizedPollOptions<T> {
  if (typeof __DEV__ === 'undefined' || __DEV__) checkPollOptions(options, '');
  const given = definedOptions(options) as PollOptions<T>;
  if (isStream(given.init?.body)) refuse('init.body', 'a body that can be sent again (a string, URLSearchParams, Blob...), not a ReadableStream: a poll sends it many times');
  const fetchImpl = given.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') refuse('fetch', 'a function: this runtime has none');
  const env = resolveEnvironment(given.env);
  const { isDone = () => false, onUpdate, onEvent, signal: callerSignal, timeout, ...rest } = given;
  return {
    settings: {
      ...POLL_DEFAULTS,
      backoff: pollBackoff(env),
      parse: parseJson,
      init: {},
      use: [],
      requestTimeout: undefined,
      ...(rest as Partial<PollSettings>),
      fetch: detachedFetch(fetchImpl),
      env,
    },
    isDone,
    onUpdate,
    onEvent,
    signal: callerSignal,
    timeout,
  };
}
