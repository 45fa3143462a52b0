import type { Backoff } from '../backoff/types.js';
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
  interval: number;
  maxAttempts: number;
  backoff: Backoff;
  maxRetryAfter: number;
  timeout?: number | undefined;
  requestTimeout?: number | undefined;
  pauseWhenHidden: boolean;
  conditional: boolean;
  parse: (response: Response) => Promise<T>;
  init: RequestInit;
  fetch: typeof fetch;
  env: Environment;
}

const POLL_SPEC: OptionSpec<PollOptions> = {
  isDone: 'function',
  onUpdate: 'function',
  onEvent: 'function',
  signal: 'signal',
  interval: 'duration',
  maxAttempts: 'count',
  backoff: 'function',
  maxRetryAfter: 'duration',
  timeout: 'duration',
  requestTimeout: 'duration',
  pauseWhenHidden: 'boolean',
  conditional: 'boolean',
  parse: 'function',
  init: 'object',
  fetch: 'function',
  env: 'object',
};

/** Validates every option once, naming the first bad one in a `TypeError`. */
export function normalizePollOptions<T>(options: PollOptions<T> | undefined): NormalizedPollOptions<T> {
  const given = validateOptions(options as PollOptions, POLL_SPEC) as PollOptions<T>;
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
    // Called detached: browsers and workerd throw "Illegal invocation" when fetch runs with an options object as `this`.
    fetch: (input, init) => fetchImpl(input, init),
    env,
  };
}
