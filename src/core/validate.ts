/** The kinds of value an option may hold; each names its check and the words of its error. */
const KINDS = {
  duration: [(v: unknown) => typeof v === 'number' && v >= 0 && v < Infinity, 'a finite number >= 0'],
  count: [(v: unknown) => Number.isInteger(v) && (v as number) >= 0, 'a non-negative integer'],
  function: [(v: unknown) => typeof v === 'function', 'a function'],
  boolean: [(v: unknown) => typeof v === 'boolean', 'a boolean'],
  object: [(v: unknown) => typeof v === 'object' && v !== null, 'an object'],
  // Duck-typed, so signals of other realms pass.
  signal: [(v: unknown) => typeof (v as AbortSignal | null)?.addEventListener === 'function' && 'aborted' in (v as object), 'an AbortSignal'],
  strings: [(v: unknown) => Array.isArray(v) && v.every((item) => typeof item === 'string'), 'an array of strings'],
  statuses: [
    (v: unknown) => Array.isArray(v) && v.every((code) => Number.isInteger(code) && code >= 100 && code <= 599),
    'an array of HTTP status codes (integers 100-599)',
  ],
  'boolean-or-string': [(v: unknown) => typeof v === 'boolean' || (typeof v === 'string' && v !== ''), 'a boolean or a non-empty string'],
  // Duck-typed, so a budget made by another copy of pollite (or your own) passes.
  budget: [
    (v: unknown) =>
      typeof (v as { withdraw?: unknown } | null)?.withdraw === 'function' &&
      typeof (v as { refund?: unknown }).refund === 'function' &&
      typeof (v as { available?: unknown }).available === 'number',
    'a RetryBudget (see createRetryBudget)',
  ],
} as const satisfies Record<string, readonly [(value: unknown) => boolean, string]>;

/** The kind of one option. */
export type OptionKind = keyof typeof KINDS;

/** For each option name, its kind. */
export type OptionSpec<O> = { readonly [K in keyof Required<O>]: OptionKind };

/**
 * Checks every option present in `options` against `spec`, throwing a
 * `TypeError` that names the first bad one (p-retry style:
 * ``Expected `interval` to be a finite number >= 0``). Returns the options
 * without their `undefined` entries, ready to spread over the defaults.
 */
export function validateOptions<O extends object>(options: O | undefined, spec: OptionSpec<O>): Partial<O> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw new TypeError('Expected `options` to be an object');
  const checked: Partial<O> = {};
  for (const name in spec) {
    const value = options[name];
    if (value === undefined) continue;
    const [isValid, expected] = KINDS[spec[name]];
    if (!isValid(value)) throw new TypeError(`Expected \`${name}\` to be ${expected}`);
    checked[name] = value;
  }
  return checked;
}

/** A URL-ish input: a string that parses (against the page's base, if any), a URL or a Request. */
export function checkInput(input: unknown): void {
  const request = input as { url?: unknown; clone?: unknown } | null;
  const ok =
    typeof input === 'string'
      ? URL.canParse(input, (globalThis as { location?: { href?: string } }).location?.href)
      : input instanceof URL || (typeof request?.url === 'string' && typeof request.clone === 'function');
  if (!ok) throw new TypeError(`Expected \`input\` to be a valid URL string, URL or Request, got ${String(input)}`);
}
