import { lookupPath } from './condition.js';
import { sanitize } from './sanitize.js';

const MAX_TEXT = 40;

/**
 * A few words for a JSON body in the status line: its `status` (or `state`)
 * and `progress` (or `percent`) as `running 45%`, then the value of each
 * condition path not already shown (`items.0.done=false`). Falls back to
 * the body's type when none of these is present.
 */
export function describeBody(body: unknown, paths: readonly (readonly string[])[] = []): string {
  const words: string[] = [];
  const shown = new Set<string>();
  for (const key of ['status', 'state']) {
    const found = lookupPath(body, [key]);
    if (found.found && isPrintable(found.value)) {
      words.push(clip(String(found.value)));
      shown.add(key);
      break;
    }
  }
  for (const key of ['progress', 'percent']) {
    const found = lookupPath(body, [key]);
    if (found.found && typeof found.value === 'number') {
      words.push(`${found.value}%`);
      shown.add(key);
      break;
    }
  }
  for (const path of paths) {
    const name = path.join('.');
    if (shown.has(name)) continue;
    shown.add(name);
    const found = lookupPath(body, path);
    words.push(`${name}=${found.found ? clip(JSON.stringify(found.value) ?? 'undefined') : '(missing)'}`);
  }
  if (words.length > 0) return words.join(' ');
  if (body === undefined) return 'no body';
  if (Array.isArray(body)) return `array of ${body.length}`;
  return typeof body === 'object' && body !== null ? 'object' : clip(JSON.stringify(body) ?? String(body));
}

const isPrintable = (value: unknown): boolean => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** Keeps the line short and free of the escapes and control characters a server might send. */
const clip = (text: string): string => sanitize(text, MAX_TEXT);
