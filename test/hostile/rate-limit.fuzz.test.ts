import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRateLimit, type HeaderReader, type RateLimit } from '../../src/kit/index.js';
import { FC_RUNS } from '../property/runs.js';

// The RateLimit field is text any server (or anything between) can write,
// and a draft-8+ one is a list of quotas. Whatever the text, parseRateLimit
// never throws, reads in linear time, and agrees with two models: a small
// one of the text (quoted strings blanked, then split), and the binding
// rule over quotas generated as numbers (fewest left, then latest reset).

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
/** The field as a HeaderReader: no Headers, so any text at all reaches the parser (a Headers trims and refuses CR, LF, NUL). */
const field = (ratelimit: string): HeaderReader => ({ get: (name) => (name === 'ratelimit' ? ratelimit : null) });
const read = (ratelimit: string): RateLimit => parseRateLimit(field(ratelimit), NOW, Infinity);

const integer = (text: string | undefined): number | null => (text !== undefined && /^\d+$/.test(text.trim()) && Number(text) < Infinity ? Number(text) : null);
const decimal = (text: string | undefined): number | null => (text !== undefined && /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : null);

/** Whether `a` binds harder than `b`: fewer requests left (unsaid is plenty), then the later reset. */
const bindsHarder = (a: RateLimit, b: RateLimit): boolean =>
  (a.remaining ?? Infinity) < (b.remaining ?? Infinity) || ((a.remaining ?? Infinity) === (b.remaining ?? Infinity) && (a.reset ?? -1) > (b.reset ?? -1));
const binding = (quotas: RateLimit[]): RateLimit => quotas.reduce((bound, quota) => (bindsHarder(quota, bound) ? quota : bound), { remaining: null, reset: null });

/** The model of the text: quoted strings (escapes and all, or to the end) blanked, members split on `,`, parameters on `;`, the first of each key counted. */
function model(text: string): RateLimit {
  const blanked = text.replace(/"(?:[^"\\]|\\[\s\S]?)*"?/g, '""');
  const quotas: RateLimit[] = [];
  const draft7: Record<string, string> = {};
  for (const member of blanked.split(',')) {
    const seen: Record<string, string> = {};
    for (const segment of member.split(';')) {
      const eq = segment.indexOf('=');
      const key = segment.slice(0, eq).trim();
      if (eq > 0 && ['r', 't', 'remaining', 'reset'].includes(key) && !(key in seen)) seen[key] = segment.slice(eq + 1);
    }
    if ('r' in seen || 't' in seen) quotas.push({ remaining: integer(seen.r), reset: decimal(seen.t) });
    for (const key of ['remaining', 'reset']) if (!(key in draft7) && key in seen) draft7[key] = seen[key]!;
  }
  quotas.push({ remaining: integer(draft7.remaining), reset: decimal(draft7.reset) });
  const bound = binding(quotas);
  return { remaining: bound.remaining, reset: bound.reset === null ? null : bound.reset * 1000 };
}

/** Text made of the field's own syntax, so members, quotes, escapes and keys meet often. */
const syntax = fc.string({ unit: fc.constantFrom('"', '\\', ',', ';', '=', ' ', '\t', 'r', 't', 'remaining', 'reset', 'limit', '0', '1', '7', '.', '5', '-', 'x', 'é'), maxLength: 60 });

/** A quota as a server writes it: a name (a string holding anything, escaped, or a token) and `r`/`t` parameters among others. */
const quota = fc.record({
  name: fc.oneof(fc.string({ maxLength: 12 }).map((name) => `"${name.replace(/[\\"]/g, (c) => `\\${c}`)}"`), fc.constantFrom('default', 'burst', 'day')),
  remaining: fc.option(fc.nat({ max: 1000 }), { nil: undefined }),
  reset: fc.option(fc.nat({ max: 100_000 }), { nil: undefined }),
  other: fc.constantFrom('', ';pk=:YWJj:', ';q=100', ';w="r=0,t=9"'),
  space: fc.constantFrom('', ' ', '  '),
});

describe('parseRateLimit on a RateLimit list, under hostile input', () => {
  it(`agrees with the model of the text, and never throws (${FC_RUNS} runs each)`, () => {
    for (const text of [syntax, fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 40 })]) {
      fc.assert(
        fc.property(text, (ratelimit) => {
          expect(read(ratelimit)).toEqual(model(ratelimit));
        }),
        { numRuns: FC_RUNS },
      );
    }
  });

  it(`reads the quota that binds: the fewest left, then the latest reset, wherever it is listed (${FC_RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.array(quota, { minLength: 1, maxLength: 6 }), (quotas) => {
        const text = quotas
          .map(({ name, remaining, reset, other, space }) => `${name}${remaining === undefined ? '' : `;${space}r=${remaining}`}${other}${reset === undefined ? '' : `;${space}t=${reset}`}`)
          .join(', ');
        const said = quotas.filter((q) => q.remaining !== undefined || q.reset !== undefined).map((q) => ({ remaining: q.remaining ?? null, reset: q.reset ?? null }));
        const bound = binding(said);
        expect(read(text)).toEqual({ remaining: bound.remaining, reset: bound.reset === null ? null : bound.reset * 1000 });
      }),
      { numRuns: FC_RUNS },
    );
  });

  it('reads 100,000-character fields in linear time', () => {
    const n = 100_000;
    const fields: Array<[string, RateLimit]> = [
      ['"'.repeat(n), { remaining: null, reset: null }],
      ['\\'.repeat(n), { remaining: null, reset: null }],
      [`"${'\\'.repeat(n)}`, { remaining: null, reset: null }],
      [`"${'\\"'.repeat(n / 2)}";r=0;t=1`, { remaining: 0, reset: 1000 }],
      [';'.repeat(n), { remaining: null, reset: null }],
      [','.repeat(n), { remaining: null, reset: null }],
      ['='.repeat(n), { remaining: null, reset: null }],
      [' '.repeat(n) + 'r=1', { remaining: 1, reset: null }],
      [`r=${'9'.repeat(n)}`, { remaining: null, reset: null }], // a count past 2^1024 is no count
      ['r=1;'.repeat(n / 4), { remaining: 1, reset: null }],
      ['"a";r=0;t=1, '.repeat(n / 13), { remaining: 0, reset: 1000 }],
      [`"b";r=3;t=2, ${'"a";r=5;t=1, '.repeat(n / 13)}`, { remaining: 3, reset: 2000 }],
      ['remaining=0, '.repeat(n / 13) + 'reset=4', { remaining: 0, reset: 4000 }],
    ];
    for (const [text, expected] of fields) {
      const started = performance.now();
      expect(read(text), text.slice(0, 20)).toEqual(expected);
      expect(performance.now() - started, text.slice(0, 20)).toBeLessThan(1000);
    }
  });
});
