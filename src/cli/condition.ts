/**
 * `--until` and `--fail-when` conditions: a tiny, pure language over a JSON
 * body. `path=value[,value...]`, `path!=value[,value...]`, or
 * `path<op>number` with `<op>` one of `>`, `>=`, `<`, `<=`. `path` is a dot
 * path (`status`, `job.state`, `items.0.done`); values are JSON scalars.
 */

/** A JSON scalar: what a condition compares against. */
export type JsonScalar = string | number | boolean | null;

/** A parsed condition; `source` is the text it came from, for messages. */
export type Condition =
  | { source: string; path: readonly string[]; op: '=' | '!='; values: readonly JsonScalar[] }
  | { source: string; path: readonly string[]; op: '>' | '>=' | '<' | '<='; value: number };

/** A condition that cannot be parsed; the message says what is wrong and how to write it. */
export class ConditionSyntaxError extends Error {
  constructor(source: string, problem: string) {
    super(`Invalid condition '${source}': ${problem} (write path=value, path!=value or path>=number)`);
    this.name = 'ConditionSyntaxError';
  }
}

// Longest first, so `>=` is not read as `>` followed by `=value`.
const OPERATORS = ['!=', '>=', '<=', '=', '>', '<'] as const;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Parses one condition. Unquoted values that read as JSON `true`, `false`,
 * `null` or a number mean that scalar; anything else is a string; a
 * double-quoted value is always a string (`version="3"`, `msg="a, b"`).
 *
 * @throws {ConditionSyntaxError}
 */
export function parseCondition(source: string): Condition {
  const at = source.search(/[=!<>]/);
  if (at === -1) throw new ConditionSyntaxError(source, 'no operator');
  const op = OPERATORS.find((candidate) => source.startsWith(candidate, at));
  if (op === undefined) throw new ConditionSyntaxError(source, `'${source[at]}' is not an operator`);
  const path = parsePath(source, source.slice(0, at).trim());
  const rest = source.slice(at + op.length);
  if (op === '=' || op === '!=') return { source, path, op, values: parseValues(source, rest) };
  const text = rest.trim();
  if (!JSON_NUMBER.test(text)) throw new ConditionSyntaxError(source, `'${op}' needs a number, got '${text}'`);
  return { source, path, op, value: Number(text) };
}

function parsePath(source: string, text: string): string[] {
  if (text === '') throw new ConditionSyntaxError(source, 'the path is empty');
  const segments = text.split('.');
  if (segments.some((segment) => segment === '')) throw new ConditionSyntaxError(source, `'${text}' has an empty path segment`);
  return segments;
}

/** Splits on commas outside double quotes, then reads each item as a scalar. */
function parseValues(source: string, text: string): JsonScalar[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted && char === '\\') {
      current += char + (text[i + 1] ?? '');
      i += 1;
    } else if (char === '"') {
      quoted = !quoted;
      current += char;
    } else if (char === ',' && !quoted) {
      items.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (quoted) throw new ConditionSyntaxError(source, 'a quote is not closed');
  items.push(current);
  return items.map((item) => parseScalar(source, item.trim()));
}

function parseScalar(source: string, item: string): JsonScalar {
  if (item === '') throw new ConditionSyntaxError(source, 'a value is empty (write "" for the empty string)');
  if (item.startsWith('"')) {
    let value: unknown;
    try {
      value = JSON.parse(item);
    } catch {
      throw new ConditionSyntaxError(source, `${item} is not a valid quoted string`);
    }
    if (typeof value !== 'string') throw new ConditionSyntaxError(source, `${item} is not a valid quoted string`);
    return value;
  }
  if (item === 'true') return true;
  if (item === 'false') return false;
  if (item === 'null') return null;
  if (JSON_NUMBER.test(item)) return Number(item);
  return item;
}

/**
 * Follows `path` through own properties only (`Object.hasOwn`), into objects
 * and arrays, so `__proto__` or `constructor.prototype` can never reach a
 * prototype. Returns `{ found: false }` where the path leads nowhere.
 */
export function lookupPath(body: unknown, path: readonly string[]): { found: true; value: unknown } | { found: false } {
  let value = body;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return { found: false };
    value = (value as Record<string, unknown>)[segment];
  }
  return { found: true, value };
}

/**
 * True when `body` satisfies `condition`. A path that is missing, or leads to
 * an object or array, matches nothing (not even `!=`); comparisons need a
 * number; `=` and `!=` compare scalars strictly (`3` is not `"3"`).
 */
export function matchCondition(condition: Condition, body: unknown): boolean {
  const found = lookupPath(body, condition.path);
  if (!found.found) return false;
  const { value } = found;
  switch (condition.op) {
    case '=':
      return isScalar(value) && condition.values.some((v) => v === value);
    case '!=':
      return isScalar(value) && !condition.values.some((v) => v === value);
    case '>':
      return typeof value === 'number' && value > condition.value;
    case '>=':
      return typeof value === 'number' && value >= condition.value;
    case '<':
      return typeof value === 'number' && value < condition.value;
    case '<=':
      return typeof value === 'number' && value <= condition.value;
  }
}

const isScalar = (value: unknown): value is JsonScalar =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
