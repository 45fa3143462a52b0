import { resolveEnvironment, type Environment } from '../env/environment.js';
import { boolean, func, object, pickOptions, positiveDuration, validateOptions, type Check } from '../options/check.js';
import { checkPollOptions, normalizePollOptions, pollOptionNames } from '../poll/normalize-poll-options.js';
import type { PollOptions } from '../poll/poll-options.js';
import { isOrigin } from './carried-init.js';
import type { OperationOptions } from './operation-options.js';
import { preferWaitCheck } from './prefer-wait.js';
import type { OperationCheckpoint } from './operation-resume.js';

/** Every default of `pollOperation` beyond `poll`'s, in one frozen place. */
export const OPERATION_DEFAULTS = Object.freeze({
  fetchResult: true,
  // Longest wait a Retry-After may impose: poll's default, also for the start's.
  maxRetryAfter: 300_000,
  // The wait before the first poll when the start answer names none: poll's default interval.
  interval: 2000,
});

/** {@link OperationOptions} after validation: pollOperation's own, and the rest for `poll` as given. */
export interface NormalizedOperationOptions<TStatus> {
  own: Pick<OperationOptions<TStatus>, 'idempotencyKey' | 'operationUrl' | 'isDone' | 'isFailed' | 'headers' | 'trustedOrigins' | 'parse' | 'onUpdate' | 'onEvent' | 'timeout' | 'resume' | 'preferWait'>;
  fetchResult: boolean;
  /** The options handed to every `poll` of the monitor, validated by `poll`'s own rules. */
  poll: Omit<PollOptions<unknown>, 'isDone' | 'parse' | 'onUpdate' | 'onEvent' | 'timeout' | 'init' | 'signal'>;
  interval: number;
  maxRetryAfter: number;
  env: Environment;
}

const key: Check = [(v) => typeof v === 'boolean' || (typeof v === 'string' && v !== ''), 'a boolean or a non-empty string'];
const checkpoint: Check = [(v) => typeof (v as OperationCheckpoint | null)?.beginOperation === 'function', "a checkpoint (see checkpoint() of 'pollite/resume')"];
const origins: Check = [(v) => Array.isArray(v) && v.every(isOrigin), "an array of origins such as 'https://ops.example.com' (scheme, host and port only)"];

const OWN_SPEC = {
  idempotencyKey: key,
  operationUrl: func,
  isDone: func,
  isFailed: func,
  fetchResult: boolean,
  headers: object,
  trustedOrigins: origins,
  timeout: positiveDuration,
  preferWait: preferWaitCheck,
  parse: func,
  onUpdate: func,
  onEvent: func,
  resume: checkpoint,
} as const;

/** The names `operation` may hold: pollOperation's own, and poll's. */
export const operationOptionNames = (): string[] => [...Object.keys(OWN_SPEC), ...pollOptionNames()];

/**
 * Validates every option of `pollOperation` once, before the start request
 * is sent, naming the first bad one in a `TypeError`; those it shares with
 * `poll` are checked by `poll`'s own rules (which also refuse the options
 * that moved).
 */
export function normalizeOperationOptions<TStatus>(options: OperationOptions<TStatus> | undefined): NormalizedOperationOptions<TStatus> {
  // A name neither pollOperation nor poll reads is refused here, naming the nearest of both.
  if (typeof __DEV__ === 'undefined' || __DEV__) validateOptions(options, OWN_SPEC, { also: pollOptionNames(), path: 'operation.' });
  const own = pickOptions(options, OWN_SPEC) as NormalizedOperationOptions<TStatus>['own'] & { fetchResult?: boolean };
  const rest: Record<string, unknown> = { ...options };
  for (const name in OWN_SPEC) delete rest[name];
  // `poll` refuses `init` and `signal` by name here: the start's init is pollOperation's second argument.
  for (const name of ['init', 'signal'] as const) {
    if (rest[name] !== undefined) throw new TypeError(`Expected \`${name}\` to be given to pollOperation's second argument, not to \`operation\``);
  }
  // Named where they were given: `operation.interval`.
  if (typeof __DEV__ === 'undefined' || __DEV__) checkPollOptions(rest as PollOptions, 'operation.');
  normalizePollOptions(rest as PollOptions);
  const passed = rest as NormalizedOperationOptions<TStatus>['poll'];
  const { fetchResult = OPERATION_DEFAULTS.fetchResult, ...kept } = own;
  return {
    own: kept,
    fetchResult,
    poll: passed,
    interval: passed.interval ?? OPERATION_DEFAULTS.interval,
    maxRetryAfter: passed.maxRetryAfter ?? OPERATION_DEFAULTS.maxRetryAfter,
    env: resolveEnvironment(passed.env),
  };
}
