// The checks behind every TypeError of `simulate()`: each names the option
// (nested as `server.outages[0].end`), says what it expects and shows what
// it got, e.g. "Expected `clients` to be an integer >= 1, got 0".
import { checkNames } from '../options/check.js';

/** A bad value as an error shows it: short, never the whole of a big one. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}...` : value}'`;
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

/** Throws the TypeError naming `name`. */
export function fail(name: string, expected: string, value: unknown): never {
  throw new TypeError(`Expected \`${name}\` to be ${expected}, got ${shown(value)}`);
}

/** The bounds of a number option. */
export interface NumberRange {
  /** Smallest value accepted. */
  min: number;
  /** Largest value accepted, if any (its error says why, with `why`). */
  max?: number;
  /** Why there is a `max`, for its error. */
  why?: string;
  /** Whole numbers only (safe integers). @default false */
  integer?: boolean;
  /** `Infinity` accepted (meaning "no limit"). @default false */
  infinity?: boolean;
}

/** `value` as a number within `range`, or a TypeError naming `name`. */
export function numberIn(value: unknown, name: string, range: NumberRange): number {
  const { min, max, why, integer = false, infinity = false } = range;
  const kind = integer ? 'an integer' : infinity ? 'a number' : 'a finite number';
  const isKind = integer ? Number.isSafeInteger(value) : typeof value === 'number' && (Number.isFinite(value) || (infinity && value === Infinity));
  if (!isKind || (value as number) < min) fail(name, `${kind} >= ${min}${infinity ? ' (or Infinity)' : ''}`, value);
  if (max !== undefined && (value as number) > max) {
    fail(name, `at most ${max.toLocaleString('en-US')}${why ? ` (${why})` : ''}`, value);
  }
  return value as number;
}

/** Whole seconds for a `Retry-After` header, or `null`/`undefined` for none. */
export function retryAfterSeconds(value: unknown, name: string): number | null | undefined {
  if (value === null || value === undefined) return value;
  if (!Number.isSafeInteger(value) || (value as number) < 0) fail(name, 'an integer >= 0 (seconds) or null', value);
  return value as number;
}

/**
 * `value` as a plain object holding no key but `keys` (a misspelt key would
 * silently change the experiment): ``Unknown option `server.capcity`: did
 * you mean `server.capacity`?``. `name` is `options` for the top level.
 */
export function objectWith<T extends object>(value: unknown, name: string, keys: readonly string[]): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(name, 'an object', value);
  checkNames(value, keys, { path: name === 'options' ? '' : `${name}.` });
  return value as T;
}

/** `value` as one of `names`, compared as own strings (so `constructor` or `toString` is no name). */
export function oneOf<N extends string>(value: unknown, name: string, names: readonly N[]): N {
  if (typeof value !== 'string' || !names.includes(value as N)) fail(name, `one of ${names.join(', ')}`, value);
  return value as N;
}
