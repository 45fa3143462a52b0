import { fullJitter } from '../backoff/full-jitter.js';
import type { Backoff } from '../backoff/types.js';
import { validateOptions, type OptionSpec } from '../core/validate.js';
import { resolveEnvironment, type Environment } from '../env/environment.js';
import { isHttpError } from '../errors/http-error.js';
import type { RetryBudget } from './retry-budget.js';
import type { FetchRetryOptions, RetryInfo, RetryOptions } from './retry-options.js';
import { isRetryableError } from './is-retryable-error.js';

/** Every default of `retry` and `fetchWithRetry`, in one frozen place. */
export const RETRY_DEFAULTS = Object.freeze({
  // attempts
  retries: 3,
  // pacing
  maxRetryAfter: 300_000,
  // fetchWithRetry: what may be retried
  methods: Object.freeze(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']),
  statusCodes: Object.freeze([408, 429, 500, 502, 503, 504]),
});

/**
 * The default backoff, drawing from the environment's randomness so virtual
 * time stays deterministic; made on the first retry, as most calls need none.
 */
const retryBackoff = (env: Environment): Backoff => {
  let strategy: Backoff | undefined;
  return (attempt) => (strategy ??= fullJitter({ base: 500, cap: 10_000, random: () => env.random() }))(attempt);
};

/** {@link RetryOptions} after validation, with every default filled in. */
export interface NormalizedRetryOptions {
  retries: number;
  backoff: Backoff;
  shouldRetry: (error: unknown, ctx: { attempt: number }) => boolean | Promise<boolean>;
  onRetry?: ((info: RetryInfo) => void) | undefined;
  signals: AbortSignal[];
  timeout?: number | undefined;
  attemptTimeout?: number | undefined;
  budget?: RetryBudget | undefined;
  cooldown: boolean;
  maxRetryAfter: number;
  env: Environment;
}

/** {@link FetchRetryOptions} after validation. */
export interface NormalizedFetchRetryOptions extends NormalizedRetryOptions {
  methods: readonly string[];
  statusCodes: readonly number[];
  idempotencyKey?: boolean | string | undefined;
  fetch: typeof fetch;
}

const RETRY_SPEC: OptionSpec<RetryOptions> = {
  retries: 'count',
  backoff: 'function',
  shouldRetry: 'function',
  onRetry: 'function',
  signal: 'signal',
  timeout: 'duration',
  attemptTimeout: 'duration',
  budget: 'budget',
  cooldown: 'boolean',
  env: 'object',
};

const FETCH_RETRY_SPEC: OptionSpec<FetchRetryOptions> = {
  ...RETRY_SPEC,
  methods: 'strings',
  statusCodes: 'statuses',
  maxRetryAfter: 'duration',
  idempotencyKey: 'boolean-or-string',
  fetch: 'function',
};

function normalizeWith(given: RetryOptions & { maxRetryAfter?: number }, defaultShouldRetry: NormalizedRetryOptions['shouldRetry']): NormalizedRetryOptions {
  const env = resolveEnvironment(given.env);
  return {
    retries: given.retries ?? RETRY_DEFAULTS.retries,
    backoff: given.backoff ?? retryBackoff(env),
    shouldRetry: given.shouldRetry ?? defaultShouldRetry,
    onRetry: given.onRetry,
    signals: given.signal ? [given.signal] : [],
    timeout: given.timeout,
    attemptTimeout: given.attemptTimeout,
    budget: given.budget,
    cooldown: given.cooldown ?? true,
    maxRetryAfter: given.maxRetryAfter ?? RETRY_DEFAULTS.maxRetryAfter,
    env,
  };
}

/** Validates `retry`'s options once, naming the first bad one in a `TypeError`. */
export function normalizeRetryOptions(options: RetryOptions | undefined): NormalizedRetryOptions {
  return normalizeWith(validateOptions(options, RETRY_SPEC), isRetryableError);
}

/** Any response `fetchWithRetry` classed as a failure is in `statusCodes` already: retry it. */
const fetchShouldRetry = (error: unknown): boolean => isHttpError(error) || isRetryableError(error);

/** Validates `fetchWithRetry`'s `retry` options (and `init.signal`) once. */
export function normalizeFetchRetryOptions(
  options: FetchRetryOptions | undefined,
  initSignal: AbortSignal | null | undefined,
): NormalizedFetchRetryOptions {
  const given = validateOptions(options, FETCH_RETRY_SPEC);
  if (initSignal != null) validateOptions({ signal: initSignal }, { signal: 'signal' });
  const fetchImpl = given.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new TypeError('Expected `fetch` to be a function: this runtime has none');
  // Extended in place rather than spread into a new object: V8 makes the
  // spread-then-add form ~50x slower, which showed in every call's CPU.
  const o = normalizeWith(given, fetchShouldRetry) as NormalizedFetchRetryOptions;
  if (initSignal) o.signals = [initSignal, ...o.signals];
  o.methods = (given.methods ?? RETRY_DEFAULTS.methods).map((method) => method.toUpperCase());
  o.statusCodes = given.statusCodes ?? RETRY_DEFAULTS.statusCodes;
  o.idempotencyKey = given.idempotencyKey;
  o.fetch = fetchImpl;
  return o;
}
