import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyWait, freshFor, parseGrpcPushback, parsePollInterval, parseRetryAfterMs, serverSays, type HeaderReader } from '../../src/kit/index.js';
import { FC_RUNS } from '../property/runs.js';

// Every signal of issue 36 is text (or JSON) any server can write. Whatever
// it is, each parser returns null or a wait >= 0 (Infinity at most, which
// the cap bounds; -1 only for a refusing pushback), never throws, and reads
// a megabyte in linear time; serverSays, over all of them at once, too.

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const ADVERSARIAL = [
  '', ' ', '-0', '-1', '1e3', '1E308', '0x10', '+5', '5.', '.5', '1.5', 'NaN', 'Infinity', '-Infinity', '١٢٣', '１２３', '5\u0000', '\t5\t',
  '9'.repeat(400), '0'.repeat(10_000) + '7', '-' + '9'.repeat(400), '__proto__', 'max-age=' + '9'.repeat(400), 'max-age=5, '.repeat(100_000),
  '1'.repeat(1024 * 1024), ' '.repeat(1024 * 1024) + '5', '-'.repeat(1024 * 1024), 'no-cache,'.repeat(100_000), '"'.repeat(1024 * 1024),
];
const NAMES = ['retry-after', 'retry-after-ms', 'x-ms-retry-after-ms', 'x-poll-interval', 'grpc-retry-pushback-ms', 'x-ratelimit-retry-after', 'x-ratelimit-reset', 'x-ratelimit-remaining', 'ratelimit', 'ratelimit-remaining', 'ratelimit-reset', 'cache-control', 'age'];

const isWait = (value: number | null): boolean => value === null || (value >= 0 && !Number.isNaN(value) && !Object.is(value, -0));
/** Every name answers `text`: no Headers, so any text at all reaches the parsers (a Headers trims and refuses CR, LF, NUL). */
const all = (text: string): HeaderReader => ({ get: (name) => (NAMES.includes(name) ? text : null) });
/** Some names answer, each with its own text. */
const some = (fields: Record<string, string>): HeaderReader => ({ get: (name) => fields[name] ?? null });

function checkAll(text: string): void {
  expect(isWait(parsePollInterval(text)), `poll interval ${text.slice(0, 20)}`).toBe(true);
  expect(isWait(parseRetryAfterMs(text)), `retry-after-ms ${text.slice(0, 20)}`).toBe(true);
  const pushback = parseGrpcPushback(text);
  expect(pushback === -1 || isWait(pushback), `pushback ${text.slice(0, 20)}`).toBe(true);
  expect(isWait(freshFor(all(text))), `max-age ${text.slice(0, 20)}`).toBe(true);
  for (const status of [200, 304, 429, 503]) {
    const said = serverSays(status, all(text), NOW);
    expect(said === null || (isWait(said.ms) && (said.stop ? said.ms === 0 : true)), `serverSays ${status} ${text.slice(0, 20)}`).toBe(true);
  }
}

describe('the pacing signals under hostile input', () => {
  it('adversarial strings, 1 MB ones included: null or a safe wait, in linear time', () => {
    const started = performance.now();
    for (const text of ADVERSARIAL) checkAll(text);
    // Some 30 MB of text through six parsers: linear time is well under this; a backtracking regex is not.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(parsePollInterval('9'.repeat(400))).toBe(Infinity);
    expect(parseGrpcPushback('-' + '9'.repeat(400))).toBe(-1);
  });

  it(`arbitrary strings never throw nor give an unsafe wait (${FC_RUNS} runs each)`, () => {
    for (const arbitrary of [fc.string({ maxLength: 64 }), fc.string({ unit: 'binary', maxLength: 32 }), fc.stringMatching(/^[ \t-]*[0-9.eE+-]{0,25}[ \t]*$/)]) {
      fc.assert(
        fc.property(arbitrary, (text) => {
          checkAll(text);
        }),
        { numRuns: FC_RUNS },
      );
    }
  });

  it(`serverSays over a random mix of signals: the longest valid one, never below any (${FC_RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(200, 304, 429, 503),
        fc.option(fc.nat(10_000)),
        fc.option(fc.nat(10_000_000)),
        fc.option(fc.nat(10_000)),
        fc.option(fc.integer({ min: -5, max: 10_000_000 })),
        fc.option(fc.nat(10_000_000)),
        (status, retryAfter, retryAfterMs, pollInterval, pushback, body) => {
          const fields: Record<string, string> = {};
          if (retryAfter !== null) fields['retry-after'] = String(retryAfter);
          if (retryAfterMs !== null) fields['retry-after-ms'] = String(retryAfterMs);
          if (pollInterval !== null) fields['x-poll-interval'] = String(pollInterval);
          if (pushback !== null) fields['grpc-retry-pushback-ms'] = String(pushback);
          const said = serverSays(status, some(fields), NOW, body);
          const ok = status < 400;
          if (!ok && pushback !== null && pushback < 0) return said?.stop === true;
          const floors = [
            retryAfterMs ?? (retryAfter === null ? null : retryAfter * 1000),
            ok && pollInterval !== null ? pollInterval * 1000 : null,
            !ok ? pushback : null,
            body,
          ].filter((v): v is number => v !== null);
          if (floors.length === 0) return said === null;
          return said !== null && said.ms === Math.max(...floors);
        },
      ),
      { numRuns: FC_RUNS },
    );
  });

  it(`bodyWait never throws on arbitrary text or JSON, and gives null or a wait >= 0, in linear time (${FC_RUNS} runs)`, () => {
    const hint = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.jsonValue().map((v) => JSON.stringify(v) ?? ''),
      fc.record({ retry_after: fc.jsonValue() }).map((v) => JSON.stringify(v)),
      fc.record({ error: fc.record({ details: fc.array(fc.record({ '@type': fc.constant('type.googleapis.com/google.rpc.RetryInfo'), retryDelay: fc.oneof(fc.jsonValue(), fc.string().map((t) => `${t}s`)) })) }) }).map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(hint, (text) => isWait(bodyWait(text))),
      { numRuns: FC_RUNS },
    );
    // 64 KiB (what is read at most) of near-misses, and a megabyte of them: linear time.
    const started = performance.now();
    for (const text of ['"retryDelay": "' + '9'.repeat(1024 * 1024), '"retry_after":'.repeat(80_000), '"retryDelay":"1'.repeat(70_000), '"retry_after": ' + '1'.repeat(1024 * 1024) + 'x']) {
      expect(isWait(bodyWait(text))).toBe(true);
    }
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
