/** setTimeout's largest delay, ms (about 24.8 days). */
const MAX_TIMER = 2 ** 31 - 1;
import { UsageError } from './usage-error.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
/** A sequence of number+unit parts: `500ms`, `2s`, `1.5m`, `1h30m`. */
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
/** The longest duration accepted, ms: setTimeout's limit, about 24.8 days. */
export const MAX_DURATION = MAX_TIMER;

/**
 * Parses a command-line duration into ms: `500ms`, `2s`, `1m`, `1h`, or
 * combinations such as `1m30s`. A bare number other than `0` is refused,
 * because `5` could mean 5 ms or 5 s and a wrong guess is costly either way.
 *
 * @throws {UsageError} naming `option` and showing the accepted forms
 */
export function parseDuration(text: string, option: string): number {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const hint = `use a number with a unit: 500ms, 2s, 1m, 1h`;
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) {
    throw new UsageError(`${option} '${text}' has no unit: ${hint}`);
  }
  if (!WHOLE.test(trimmed)) throw new UsageError(`${option} '${text}' is not a duration: ${hint}`);
  let ms = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  if (ms > MAX_DURATION) throw new UsageError(`${option} '${text}' is too long: at most 24 days`);
  return Math.round(ms);
}
