import { describe, expect, it } from 'vitest';
import { describeBody } from '../../src/cli/describe-body.js';
import { colorsFor } from '../../src/cli/display/colors.js';
import { countDown, liveLine } from '../../src/cli/display/live-line.js';
import { plainLines } from '../../src/cli/display/plain-lines.js';
import { parseDuration } from '../../src/cli/duration.js';
import { parseHeaders, redactedHeaderLines } from '../../src/cli/headers.js';
import { writeBody } from '../../src/cli/json-output.js';
import { UsageError } from '../../src/cli/usage-error.js';

const stream = (isTTY: boolean, columns?: number) => {
  const writes: string[] = [];
  return { writes, isTTY, ...(columns === undefined ? {} : { columns }), write: (chunk: string) => writes.push(chunk) };
};
const snapshot = () => ({ elapsedMs: 3200, requests: 5 });

describe('colours', () => {
  const paint = (isTTY: boolean, env: Record<string, string>, wanted = true): string => colorsFor(stream(isTTY), env, wanted).green('x');
  it('only on a terminal, and never with NO_COLOR, TERM=dumb or --no-color', () => {
    expect(paint(true, {})).toBe('\x1b[32mx\x1b[39m');
    expect(paint(false, {})).toBe('x');
    expect(paint(false, { CI: 'true', FORCE_COLOR: '1' })).toBe('x');
    expect(paint(true, { NO_COLOR: '1' })).toBe('x');
    expect(paint(true, { TERM: 'dumb' })).toBe('x');
    expect(paint(true, {}, false)).toBe('x');
  });
});

describe('the live status line', () => {
  it('rewrites one line in place: spinner, elapsed, requests, last answer; clipped to the terminal', () => {
    const out = stream(true, 60);
    const line = liveLine(out, colorsFor(out, {}, false), snapshot);
    line.answer({ text: '503 - retry in 2.0 s (Retry-After) and a much longer tail to clip', tone: 'retry' });
    line.stop();
    const shown = out.writes.at(-2)!;
    expect(shown.startsWith('\r\x1b[2K')).toBe(true);
    expect(shown.slice(5)).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] 3\.2s · 5 requests · 503 - retry in 2\.0 s/);
    expect(shown.slice(5).length).toBeLessThanOrEqual(59);
    expect(shown.endsWith('…')).toBe(true);
    expect(out.writes.at(-1)).toBe('\r\x1b[2K');
    line.answer({ text: 'after stop', tone: 'ok' });
    expect(out.writes.at(-1)).toBe('\r\x1b[2K');
  });

  it('counts down the wait the last answer announced, at each tick, down to 0.0 s', async () => {
    const out = stream(true, 80);
    let elapsedMs = 4100;
    const line = liveLine(out, colorsFor(out, {}, false), () => ({ elapsedMs, requests: 6 }));
    line.answer({ text: '503 - retry in 3.1 s (Retry-After)', tone: 'retry' });
    expect(out.writes.at(-1)!.slice(5)).toMatch(/^. 4\.1s · 6 requests · 503 - retry in 3\.1 s \(Retry-After\)$/);
    elapsedMs = 5100; // a second later, at the spinner's next tick
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(out.writes.at(-1)!.slice(5)).toMatch(/^. 5\.1s · 6 requests · 503 - retry in 2\.1 s \(Retry-After\)$/);
    elapsedMs = 9000; // past the wait: it is due, never negative
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(out.writes.at(-1)!.slice(5)).toMatch(/retry in 0\.0 s \(Retry-After\)$/);
    line.answer({ text: 'origin cooling down - next request in 2.0 s (Retry-After)', tone: 'retry' });
    elapsedMs = 9500;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(out.writes.at(-1)!.slice(5)).toMatch(/next request in 1\.5 s \(Retry-After\)$/);
    line.answer({ text: '304 unchanged', tone: 'unchanged' });
    expect(out.writes.at(-1)!.slice(5)).toMatch(/· 304 unchanged$/);
    line.stop();
  });

  it('countDown: only a wait in seconds is rewritten, and never below zero', () => {
    expect(countDown('503 - retry in 3.1 s (Retry-After)', 1000, 2500)).toBe('503 - retry in 1.6 s (Retry-After)');
    expect(countDown('503 - retry in 3.1 s (backoff)', 1000, 60_000)).toBe('503 - retry in 0.0 s (backoff)');
    expect(countDown('200 running 40%', 0, 5000)).toBe('200 running 40%');
    expect(countDown('200 done in 12s', 0, 5000)).toBe('200 done in 12s');
  });

  it('prints verbose lines above the status line', () => {
    const out = stream(true, 80);
    const line = liveLine(out, colorsFor(out, {}, false), snapshot);
    line.log('> Authorization: ***');
    line.stop();
    expect(out.writes).toContain('\r\x1b[2K> Authorization: ***\n');
  });
});

describe('plain lines (not a terminal)', () => {
  it('one stamped line per change of state', () => {
    const out = stream(false);
    const lines = plainLines(out, snapshot);
    for (const text of ['200 running 40%', '304 unchanged', '304 unchanged', '200 running 60%']) lines.answer({ text, tone: 'ok' });
    lines.stop();
    lines.answer({ text: 'late', tone: 'ok' });
    expect(out.writes).toEqual(['[  3.2s] 200 running 40%\n', '[  3.2s] 304 unchanged\n', '[  3.2s] 200 running 60%\n']);
  });
});

describe('describeBody', () => {
  it('shows status and progress, then the condition paths', () => {
    expect(describeBody({ status: 'running', progress: 45 })).toBe('running 45%');
    expect(describeBody({ state: 'building', percent: 10, status: { nested: 1 } })).toBe('building 10%');
    expect(describeBody({ status: 'ok', items: [{ done: false }] }, [['items', '0', 'done'], ['status'], ['missing']])).toBe(
      'ok items.0.done=false missing=(missing)',
    );
    expect(describeBody([1, 2, 3])).toBe('array of 3');
    expect(describeBody({ a: 1 })).toBe('object');
    expect(describeBody(undefined)).toBe('no body');
  });

  it('strips control characters a server might send, and clips long text', () => {
    expect(describeBody({ status: 'evil\x1b[2J\r\nline' })).toBe('evil  line');
    expect(describeBody({ status: 'x'.repeat(100) })).toHaveLength(40);
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2000],
    ['1.5s', 1500],
    ['1m', 60_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    [' 0 ', 0],
  ])('%j is %i ms', (text, ms) => expect(parseDuration(text, '--interval')).toBe(ms));

  it.each([
    ['5', "--interval '5' has no unit"],
    ['2 s', 'is not a duration'],
    ['-1s', 'is not a duration'],
    ['1d', 'is not a duration'],
    ['', 'is not a duration'],
    ['25d', 'is not a duration'],
    ['600h', 'is too long'],
  ])('refuses %j', (text, message) => {
    expect(() => parseDuration(text, '--interval')).toThrow(UsageError);
    expect(() => parseDuration(text, '--interval')).toThrow(message);
  });
});

describe('headers', () => {
  it('reads Name: value lines and shows names only', () => {
    const headers = parseHeaders(['Authorization: Bearer abc: def', 'x-api-key:k', 'Accept:  application/json ']);
    expect(headers.get('authorization')).toBe('Bearer abc: def');
    expect(headers.get('x-api-key')).toBe('k');
    expect(headers.get('accept')).toBe('application/json');
    expect(redactedHeaderLines(headers)).toEqual(['Accept: ***', 'Authorization: ***', 'X-Api-Key: ***']);
  });

  it('refuses a line without a valid name, without echoing the value', () => {
    expect(() => parseHeaders(['no-colon-secret'])).toThrow("--header needs 'Name: value'");
    expect(() => parseHeaders(['Bad Name: secret'])).toThrow(UsageError);
    expect(() => parseHeaders(['Bad Name: secret'])).not.toThrow('secret');
  });
});

describe('--json output (writeBody)', () => {
  const bytes = Buffer.from('{"a":"\x1b[2Jx\xff"}', 'latin1');
  it('off a terminal: the bytes as they came, nothing added', () => {
    const out = { chunks: [] as unknown[], write: (chunk: unknown) => out.chunks.push(chunk) };
    writeBody(out, bytes);
    expect(out.chunks).toEqual([bytes]);
    writeBody(out, new Uint8Array(0));
    expect(out.chunks).toHaveLength(1);
  });

  it('on a terminal: decoded, control characters shown escaped, ending with a newline', () => {
    const out = stream(true);
    writeBody(out, bytes);
    writeBody(out, Buffer.from('[1,\r\n2]\n'));
    expect(out.writes).toEqual(['{"a":"\\u001b[2Jx\ufffd"}\n', '[1,\r\n2]\n']);
  });
});
