import { unknownOption } from './unknown-option.js';

/** A check of one option: the test, and the words of its error. */
export type Check = readonly [test: (value: unknown) => boolean, expected: string];

/** Throws the `TypeError` that names a bad option (p-retry style: ``Expected `interval` to be a finite number >= 0``). */
export const refuse = (name: string, expected: string): never => {
  throw new TypeError(`Expected \`${name}\` to be ${expected}`);
};

/** A wait, in milliseconds. */
export const duration: Check = [(v) => typeof v === 'number' && v >= 0 && v < Infinity, 'a finite number >= 0'];
/** A deadline, in milliseconds: `0` would end everything before it began. */
export const positiveDuration: Check = [(v) => typeof v === 'number' && v > 0 && v < Infinity, 'a finite number > 0'];
/** A quantity without a unit (a retry budget's tokens). */
export const amount: Check = [(v) => typeof v === 'number' && v >= 0 && v < Infinity, 'a finite number >= 0'];
export const count: Check = [(v) => Number.isInteger(v) && (v as number) >= 0, 'a non-negative integer'];
export const func: Check = [(v) => typeof v === 'function', 'a function'];
export const boolean: Check = [(v) => typeof v === 'boolean', 'a boolean'];
export const object: Check = [(v) => typeof v === 'object' && v !== null, 'an object'];
/** Duck-typed, so signals of other realms pass. */
export const signal: Check = [(v) => typeof (v as AbortSignal | null)?.addEventListener === 'function' && 'aborted' in (v as object), 'an AbortSignal'];

/**
 * Where a name an options object may not hold belongs instead: the words
 * that send it there (``given as `retry.retries` ``), `true` when another
 * check reads it (an option passed on), `undefined` when nothing knows it.
 */
export type Elsewhere = (name: string) => string | true | undefined;

/** How {@link checkNames} and {@link checkOptions} treat names beyond the spec. */
export interface NameRules {
  /** Names read by another check, known (and suggested) as the spec's are: the options a caller passes on (pollOperation's to poll). */
  also?: readonly string[];
  /** Names that belong elsewhere, or are read elsewhere. */
  elsewhere?: Elsewhere;
  /** Prefixes every name in the errors, for a nested object: `'retry.'`. */
  path?: string;
}

/**
 * Refuses the first own name of `options` (an object) that is not one of
 * `names` (or `rules.also`): a `TypeError` that sends it where it belongs,
 * or names the known name nearest to it. A check that only helps a
 * developer: call it behind the development guard (src/options/dev.d.ts).
 */
export function checkNames(options: unknown, names: readonly string[], { also = [], elsewhere, path = '' }: NameRules = {}): void {
  // A value that is no object has no names: its own check refuses it.
  if (typeof options !== 'object' || options === null) return;
  const known = also.length ? [...names, ...also] : names;
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const where = elsewhere?.(name);
    if (where === true) continue;
    if (where !== undefined) refuse(`${path}${name}`, where);
    throw unknownOption(name, known, path);
  }
}

/**
 * Throws a `TypeError` naming the first bad option of `options`: a name
 * `spec` does not hold (see {@link checkNames}), then a value its check
 * refuses. A check that only helps a developer: call it behind the
 * development guard (src/options/dev.d.ts), so that the spec, its words and
 * this function are dropped from a production bundle.
 */
export function validateOptions<O extends object>(options: O | undefined, spec: { readonly [K in keyof O]?: Check }, rules: NameRules = {}): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) refuse('options', 'an object');
  checkNames(options, Object.keys(spec), rules);
  for (const name in spec) {
    const value = options[name];
    if (value === undefined) continue;
    const check = spec[name]!;
    if (!check[0](value)) refuse(`${rules.path ?? ''}${name}`, expectedOf(check, value));
  }
}

/** Milliseconds per unit of a duration written as the CLI takes it. */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/**
 * The words for a value `check` refuses: a duration given as a string
 * (`'2s'`, as the CLI takes it) is told its unit, with the number it meant
 * (``a number of milliseconds (2000 for '2s'), got '2s'``). Here rather
 * than in the check, so that the words leave a production bundle with the
 * validation.
 */
function expectedOf(check: Check, value: unknown): string {
  if (typeof value !== 'string' || (check !== duration && check !== positiveDuration)) return check[1];
  const [, amount, unit] = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m|h)\s*$/i.exec(value) ?? [];
  const example = amount === undefined ? '2000 for 2 s' : `${Math.round(Number(amount) * UNITS[unit!.toLowerCase()]!)} for '${value.trim()}'`;
  return `a number of milliseconds (${example}), got '${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
}

/** The options given, less their `undefined` entries: ready to spread over the defaults. */
export function definedOptions<O extends object>(options: O | undefined): Partial<O> {
  const given: Record<string, unknown> = {};
  if (options === undefined) return given as Partial<O>;
  for (const name of Object.keys(options)) {
    const value = options[name as keyof O];
    // An own `__proto__` (from JSON.parse) is not an option, and would set the copy's prototype.
    if (value !== undefined && name !== '__proto__') given[name] = value;
  }
  return given as Partial<O>;
}

/** The options of `spec` that were given, less their `undefined` entries: for options that share an object with others' (pollOperation's and poll's). */
export function pickOptions<O extends object>(options: O | undefined, spec: { readonly [K in keyof O]?: Check }): Partial<O> {
  const picked: Partial<O> = {};
  if (options === undefined) return picked;
  for (const name in spec) if (options[name] !== undefined) picked[name] = options[name];
  return picked;
}

/**
 * {@link validateOptions} in development, then {@link pickOptions}. The
 * spec stays in a production bundle, as an argument: where bytes count,
 * call `validateOptions` behind the guard and {@link definedOptions} apart.
 */
export function checkOptions<O extends object>(options: O | undefined, spec: { readonly [K in keyof O]?: Check }, rules?: NameRules): Partial<O> {
  if (typeof __DEV__ === 'undefined' || __DEV__) validateOptions(options, spec, rules);
  return pickOptions(options, spec);
}
