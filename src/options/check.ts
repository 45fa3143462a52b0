/** A check of one option: the test, and the words of its error. */
export type Check = readonly [test: (value: unknown) => boolean, expected: string];

/** Throws the `TypeError` that names a bad option (p-retry style: ``Expected `interval` to be a finite number >= 0``). */
export const refuse = (name: string, expected: string): never => {
  throw new TypeError(`Expected \`${name}\` to be ${expected}`);
};

export const duration: Check = [(v) => typeof v === 'number' && v >= 0 && v < Infinity, 'a finite number >= 0'];
/** A deadline: `0` would end everything before it began. */
export const positiveDuration: Check = [(v) => typeof v === 'number' && v > 0 && v < Infinity, 'a finite number > 0'];
export const count: Check = [(v) => Number.isInteger(v) && (v as number) >= 0, 'a non-negative integer'];
export const func: Check = [(v) => typeof v === 'function', 'a function'];
export const boolean: Check = [(v) => typeof v === 'boolean', 'a boolean'];
export const object: Check = [(v) => typeof v === 'object' && v !== null, 'an object'];
/** Duck-typed, so signals of other realms pass. */
export const signal: Check = [(v) => typeof (v as AbortSignal | null)?.addEventListener === 'function' && 'aborted' in (v as object), 'an AbortSignal'];

/**
 * Checks every option of `spec` present in `options`, throwing a `TypeError`
 * that names the first bad one. Returns the options without their
 * `undefined` entries, ready to spread over the defaults.
 */
export function checkOptions<O extends object>(options: O | undefined, spec: { readonly [K in keyof O]?: Check }): Partial<O> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) refuse('options', 'an object');
  const checked: Partial<O> = {};
  for (const name in spec) {
    const value = options[name];
    if (value === undefined) continue;
    const [test, expected] = spec[name]!;
    if (!test(value)) refuse(name, expected);
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
  if (!ok) refuse('input', `a valid URL string, URL or Request, got ${String(input)}`);
}
