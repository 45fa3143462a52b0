import { checkNames } from '../options/check.js';
import type { BackoffOptions } from './types.js';

/** The validated, resolved form of {@link BackoffOptions}. */
export interface ResolvedBackoff {
  base: number;
  cap: number;
  random: () => number;
}

const isDuration = (value: unknown): value is number =>
  typeof value === 'number' && value >= 0 && Number.isFinite(value);

/**
 * Validates backoff options at factory time, so a bad `base` fails where it
 * was written (in development: see src/options/dev.d.ts). `more`: the names
 * of a strategy's own options (`jitter`).
 */
export function resolveBackoff(options: BackoffOptions | undefined, more: readonly string[] = []): ResolvedBackoff {
  const { base, cap, random } = options ?? ({} as BackoffOptions);
  if (typeof __DEV__ === 'undefined' || __DEV__) {
    checkNames(options, ['base', 'cap', 'random', ...more]);
    if (!isDuration(base)) throw new TypeError('Expected `base` to be a finite number >= 0');
    if (!isDuration(cap)) throw new TypeError('Expected `cap` to be a finite number >= 0');
    if (base > cap) throw new TypeError('Expected `base` to be <= `cap`');
    if (random !== undefined && typeof random !== 'function') {
      throw new TypeError('Expected `random` to be a function');
    }
  }
  // Late binding keeps spies on Math.random working.
  return { base, cap, random: random ?? (() => Math.random()) };
}

/** `min(cap, base * 2 ** (attempt - 1))`: the exponential ceiling of retry `attempt`. */
export const expo = (base: number, cap: number, attempt: number): number => Math.min(cap, base * 2 ** (Math.max(1, attempt) - 1));

/** {@link expo} of resolved options. */
export const ceiling = ({ base, cap }: ResolvedBackoff, attempt: number): number => expo(base, cap, attempt);
