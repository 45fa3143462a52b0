import { resolveEnvironment } from '../env/environment.js';
import { parseJson } from '../http/body.js';
import { boolean, checkOptions, count, duration, func, object, positiveDuration, refuse, signal } from '../options/check.js';
import { POLL_DEFAULTS, pollBackoff } from './defaults.js';
import type { PollSettings } from './feature.js';
import type { PollEvent } from './poll-events.js';
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

const isStream = (body: unknown): boolean => typeof (body as ReadableStream | null)?.getReader === 'function';

/** Validates every option once, naming the first bad one in a `TypeError`. */
export function normalizePollOptions<T>(options: PollOptions<T> | undefined): NormalizedPollOptions<T> {
  for (const name in MOVED) if (options?.[name as keyof PollOptions] !== undefined) refuse(name, `given as ${MOVED[name]}${name === 'maxAttempts' ? '' : COOPERATE}`);
  if (typeof options?.interval === 'object') refuse('interval', `a number: a range is \`use: [paceByData({ min, max })]\`${COOPERATE}`);
  const given = checkOptions(options, SPEC) as PollOptions<T>;
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
      // Called detached: browsers and workerd throw "Illegal invocation" when fetch runs with an options object as `this`.
      fetch: (input, init) => fetchImpl(input, init),
      env,
    },
    isDone,
    onUpdate,
    onEvent,
    signal: callerSignal,
    timeout,
  };
}
