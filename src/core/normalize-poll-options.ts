import type { Backoff } from '../backoff/types.js';
import { checkInterval, type Pace } from '../cooperate/adaptive-interval.js';
import { resolveEnvironment, type Environment } from '../env/environment.js';
import { parseJson } from '../http/body.js';
import { POLL_DEFAULTS, pollBackoff } from './defaults.js';
import type { PollEvent } from './poll-events.js';
import type { PollOptions } from './poll-options.js';
import { validateOptions, type OptionSpec } from './validate.js';

/** {@link PollOptions} after validation, with every default filled in. */
export interface NormalizedPollOptions<T> {
  isDone: (data: T) => boolean;
  onUpdate?: ((data: T) => void) | undefined;
  onEvent?: ((event: PollEvent) => void) | undefined;
  signal?: AbortSignal | undefined;
  /** The fixed interval, or `pace.min` when the interval adapts. */
  interval: number;
  /** Set when `interval` is a range. */
  pace?: Pace | undefined;
  maxAttempts: number;
  backoff: Backoff;
  maxRetryAfter: number;
  timeout?: number | undefined;
  requestTimeout?: number | undefined;
  pauseWhenHidden: boolean;
  pauseWhenOffline: boolean;
  pauseWhenBlurred: boolean;
  conditional: boolean;
  cooldown: boolean;
  share: boolean | 'tabs';
  parse: (response: Response) => Promise<T>;
  init: RequestInit;
  fetch: typeof fetch;
  env: Environment;
}

// `interval` and `share` take more than one kind: checked below.
const POLL_SPEC: OptionSpec<Omit<PollOptions, 'interval' | 'share'>> = {
  isDone: 'function',
  onUpdate: 'function',
  onEvent: 'function',
  signal: 'signal',
  maxAttempts: 'count',
  backoff: 'function',
  maxRetryAfter: 'duration',
  timeout: 'duration',
  requestTimeout: 'duration',
  pauseWhenHidden: 'boolean',
  pauseWhenOffline: 'boolean',
  pauseWhenBlurred: 'boolean',
  conditional: 'boolean',
  cooldown: 'boolean',
  parse: 'function',
  init: 'object',
  fetch: 'function',
  env: 'object',
};

/** Validates every option once, naming the first bad one in a `TypeError`. */
export function normalizePollOptions<T>(options: PollOptions<T> | undefined): NormalizedPollOptions<T> {
  const given = validateOptions(options as PollOptions, POLL_SPEC) as PollOptions<T>;
  const { interval = POLL_DEFAULTS.interval, share = POLL_DEFAULTS.share } = options ?? {};
  const checked = checkInterval(interval);
  if (share !== true && share !== false && share !== 'tabs') throw new TypeError("Expected `share` to be a boolean or 'tabs'");
  const fetchImpl = given.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new TypeError('Expected `fetch` to be a function: this runtime has none');
  const env = resolveEnvironment(given.env);
  return {
    ...POLL_DEFAULTS,
    isDone: () => false,
    backoff: given.backoff ?? pollBackoff(env),
    parse: parseJson as (response: Response) => Promise<T>,
    init: {},
    ...given,
    ...(typeof checked === 'number' ? { interval: checked } : { interval: checked.min, pace: checked }),
    share,
    // Called detached: browsers and workerd throw "Illegal invocation" when fetch runs with an options object as `this`.
    fetch: (input, init) => fetchImpl(input, init),
    env,
  };
}
