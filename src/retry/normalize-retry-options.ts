import type { RunCheckpoint } from '../engine/resume-point.js';
import type { Backoff } from '../backoff/types.js';
import { resolveClock, type Clock } from '../env/clock.js';
import { boolean, checkNames, count, definedOptions, duration, func, object, positiveDuration, refuse, signal, validateOptions, type Check } from '../options/check.js';
import { REQUEST_INIT_NAMES } from '../options/request-init-names.js';
import type { Wake } from '../env/wait.js';
import type { RetryBudget } from './retry-budget.js';
import type { FetchRetryOptions, GiveUpInfo, RetryInfo, RetryOptions } from './retry-options.js';

/** Every default of `retry` and `fetchWithRetry`, in one frozen place. */
export const RETRY_DEFAULTS = Object.freeze({
  // attempts
  retries: 3,
  // pacing
  maxRetryAfter: 300_000,
  // fetchWithRetry: what may be retried
  methods: Object.freeze(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']),
  statusCodes: Object.freeze([408, 429, 500, 502, 503, 504]),
  // fetchWithRetry: how it ends
  throwHttpErrors: false,
});

/** {@link RetryOptions} after validation, with every default filled in. */
export interface NormalizedRetryOptions {
  retries: number;
  /** Unset: the loop's default, full jitter from 500 ms to 10 s. */
  backoff: Backoff | undefined;
  shouldRetry: ((error: unknown, ctx: { attempt: number }) => boolean | Promise<boolean>) | undefined;
  onRetry: ((info: RetryInfo) => void) | undefined;
  onGiveUp: ((info: GiveUpInfo) => void) | undefined;
  /** The caller's signals (fetchWithRetry: `init.signal` or a Request's, and `retry.signal`). */
  signals: AbortSignal[];
  timeout: number | undefined;
  attemptTimeout: number | undefined;
  budget: RetryBudget | undefined;
  wake: Wake | undefined;
  cooldown: boolean;
  maxRetryAfter: number;
  env: Clock;
}

/** {@link FetchRetryOptions} after validation. */
export interface NormalizedFetchRetryOptions extends NormalizedRetryOptions {
  methods: readonly string[];
  statusCodes: readonly number[];
  idempotencyKey: boolean | string | undefined;
  throwHttpErrors: boolean;
  fetch: typeof fetch;
  resume: RunCheckpoint | undefined;
}

/** Duck-typed, so a budget made by another copy of pollite (or your own, or `pollite/cluster`'s) passes. */
const budget: Check = [
  (v) => typeof (v as RetryBudget | null)?.withdraw === 'function' && typeof (v as RetryBudget).refund === 'function' && typeof (v as RetryBudget).retryCost === 'number',
  'a RetryBudget (see createRetryBudget)',
];

const wake: Check = [(v) => typeof (v as Wake | null)?.subscribe === 'function' && typeof (v as Wake).ready === 'function', 'a Wake ({ reason, subscribe, ready })'];

const RETRY_SPEC = {
  retries: count,
  backoff: func,
  shouldRetry: func,
  onRetry: func,
  onGiveUp: func,
  signal,
  timeout: positiveDuration,
  attemptTimeout: positiveDuration,
  budget,
  wake,
  cooldown: boolean,
  maxRetryAfter: duration,
  env: object,
};

const strings: Check = [(v) => Array.isArray(v) && v.every((item) => typeof item === 'string'), 'an array of strings'];
const statuses: Check = [(v) => Array.isArray(v) && v.every((code) => Number.isInteger(code) && code >= 100 && code <= 599), 'an array of HTTP status codes (integers 100-599)'];
const key: Check = [(v) => typeof v === 'boolean' || (typeof v === 'string' && v !== ''), 'a boolean or a non-empty string'];
const checkpoint: Check = [(v) => typeof (v as RunCheckpoint | null)?.begin === 'function', "a checkpoint (see checkpoint() of 'pollite/resume')"];

function fill(given: RetryOptions): NormalizedRetryOptions {
  return {
    retries: given.retries ?? RETRY_DEFAULTS.retries,
    backoff: given.backoff,
    shouldRetry: given.shouldRetry,
    onRetry: given.onRetry,
    onGiveUp: given.onGiveUp,
    signals: given.signal ? [given.signal] : [],
    timeout: given.timeout,
    attemptTimeout: given.attemptTimeout,
    budget: given.budget,
    wake: given.wake,
    cooldown: given.cooldown ?? true,
    maxRetryAfter: given.maxRetryAfter ?? RETRY_DEFAULTS.maxRetryAfter,
    env: resolveClock(given.env),
  };
}

/** Validates `retry`'s options once, naming the first bad one in a `TypeError`. */
export function normalizeRetryOptions(options: RetryOptions | undefined): NormalizedRetryOptions {
  if (typeof __DEV__ === 'undefined' || __DEV__) validateOptions(options, RETRY_SPEC);
  return fill(definedOptions(options));
}

// Made when asked, not at the top: a module-level spread is kept by bundlers, with fetchWithRetry's checks, in a bundle of `retry` alone.
const fetchRetrySpec = () => ({ ...RETRY_SPEC, methods: strings, statusCodes: statuses, idempotencyKey: key, throwHttpErrors: boolean, fetch: func, resume: checkpoint });

/** The names of `fetchWithRetry`'s `retry` options, for a caller that takes them too (createFetchState). */
export const fetchRetryOptionNames = (): string[] => Object.keys(fetchRetrySpec());

/**
 * Refuses the first name `fetchWithRetry`'s `retry` options may not hold,
 * then the first bad value, each named as the
 * caller gave it: `path` `''` for a caller that takes them flat
 * (createFetchState: ``Expected `retries` to be…``, not `retry.retries`).
 * Development only, as every such check.
 */
export function checkFetchRetryValues(options: object, path: string): void {
  validateOptions(options, fetchRetrySpec(), { path });
}

/**
 * Refuses a name of `fetchWithRetry`'s second argument that fetch does not
 * read, where that argument is fetch's own init and the retry options go
 * under `retry`: ``Expected `retries` to be given as `retry.retries` ``.
 * With a `retry.fetch` of its own, a name fetch does not read is that
 * fetch's business. `key` and `names`: another function's options under
 * another key of its init (pollOperation's `operation`). Development only,
 * like every name check.
 */
export function checkFetchInit(init: object, key = 'retry', names: readonly string[] = fetchRetryOptionNames()): void {
  const options = (init as Record<string, { fetch?: unknown } | null | undefined>)[key];
  // Another fetch than the global one (node-fetch's `agent`...) may read any field: only one of the options is refused then.
  const own = options?.fetch !== undefined && options.fetch !== globalThis.fetch;
  checkNames(init, [...REQUEST_INIT_NAMES, key], {
    elsewhere: (name) => (names.includes(name) ? `given as \`${key}.${name}\`: the second argument is fetch's init, with the ${key} options under \`${key}\`` : own || undefined),
  });
}

/** Validates `fetchWithRetry`'s `retry` options once. */
export function normalizeFetchRetryOptions(options: FetchRetryOptions | undefined): NormalizedFetchRetryOptions {
  if (typeof __DEV__ === 'undefined' || __DEV__) checkFetchRetryValues(options ?? {}, 'retry.');
  const given: FetchRetryOptions = definedOptions(options);
  const fetchImpl = given.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') refuse('fetch', 'a function: this runtime has none');
  // Extended in place rather than spread into a new object: V8 makes the
  // spread-then-add form ~50x slower, which showed in every call's CPU.
  const o = fill(given) as NormalizedFetchRetryOptions;
  o.methods = (given.methods ?? RETRY_DEFAULTS.methods).map((method) => method.toUpperCase());
  o.statusCodes = given.statusCodes ?? RETRY_DEFAULTS.statusCodes;
  o.idempotencyKey = given.idempotencyKey;
  o.throwHttpErrors = given.throwHttpErrors ?? RETRY_DEFAULTS.throwHttpErrors;
  o.fetch = fetchImpl;
  o.resume = given.resume;
  return o;
}
