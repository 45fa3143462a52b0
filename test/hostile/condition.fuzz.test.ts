import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConditionSyntaxError, lookupPath, matchCondition, parseCondition } from '../../src/cli/condition.js';
import { FC_RUNS } from '../property/runs.js';

// The CLI's --until / --fail-when language reads text from the command line
// and walks JSON from a server: a bad condition is a ConditionSyntaxError
// (never another throw, never a hang), and no path reaches a prototype.

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'length', '0', 'polluted'];

/** Own-property walk, the oracle lookupPath must agree with. */
function ownWalk(body: unknown, path: readonly string[]): { found: boolean; value?: unknown } {
  let value = body;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return { found: false };
    const descriptor = Object.getOwnPropertyDescriptor(value, segment);
    if (!descriptor) return { found: false };
    value = descriptor.value;
  }
  return { found: true, value };
}

const prototypeSnapshot = (): string => JSON.stringify([Object.getOwnPropertyNames(Object.prototype), Object.getOwnPropertyNames(Array.prototype)]);

describe('CLI conditions under hostile input', () => {
  it(`parseCondition: a Condition or a ConditionSyntaxError for any text (${FC_RUNS} runs each)`, () => {
    const pieces = fc.constantFrom('=', '!=', '>', '>=', '<', '<=', '.', ',', '"', '\\', ' ', '__proto__', 'constructor', '1e999', '-0', '١٢', 'a', '0');
    for (const arbitrary of [fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.array(pieces, { maxLength: 20 }).map((p) => p.join(''))]) {
      fc.assert(
        fc.property(arbitrary, (text) => {
          try {
            const condition = parseCondition(text);
            expect(condition.path.length).toBeGreaterThan(0);
            if ('value' in condition) expect(typeof condition.value).toBe('number');
          } catch (error) {
            expect(error).toBeInstanceOf(ConditionSyntaxError);
          }
        }),
        { numRuns: FC_RUNS },
      );
    }
  });

  it('1 MB conditions parse or fail cleanly', () => {
    const big = ['a'.repeat(1 << 20), `${'a.'.repeat(1 << 19)}b=1`, `x=${'1,'.repeat(1 << 19)}1`, `x="${'\\"'.repeat(1 << 19)}`, `x>${'9'.repeat(1 << 20)}`, '='.repeat(1 << 20)];
    for (const text of big) {
      try {
        parseCondition(text);
      } catch (error) {
        expect(error).toBeInstanceOf(ConditionSyntaxError);
      }
    }
    // A huge number compares as Infinity, never as a wrong finite value.
    const huge = parseCondition(`x>${'9'.repeat(400)}`);
    expect(matchCondition(huge, { x: Number.MAX_VALUE })).toBe(false);
  });

  it(`lookupPath follows own properties only, agreeing with an own-property walk (${FC_RUNS} runs)`, () => {
    const key = fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 4 }));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, true, 1, 'x'), tie('object'), tie('array')),
      object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      array: fc.array(tie('value'), { maxLength: 3 }),
    })).value;
    // Through JSON text, so `__proto__` keys arrive as own data, as from a server.
    const body = json.map((value) => JSON.parse(JSON.stringify(value)) as unknown);
    const before = prototypeSnapshot();
    fc.assert(
      fc.property(body, fc.array(key, { minLength: 1, maxLength: 4 }), (value, path) => {
        const found = lookupPath(value, path);
        const expected = ownWalk(value, path);
        expect(found.found).toBe(expected.found);
        if (found.found) expect(found.value).toBe(expected.value);
        // Keys the language can spell (no operators, dots or blanks) also go through parse + match.
        if (!path.every((segment) => /^[^=!<>.\s]+$/.test(segment))) return;
        for (const op of ['=', '!=', '>', '<='] as const) {
          const condition = parseCondition(`${path.join('.')}${op}${op === '=' || op === '!=' ? 'x' : '1'}`);
          expect(typeof matchCondition(condition, value)).toBe('boolean');
        }
      }),
      { numRuns: FC_RUNS },
    );
    expect(prototypeSnapshot()).toBe(before);
  });

  it('__proto__.polluted and constructor.prototype never touch a prototype', () => {
    const polluted = parseCondition('__proto__.polluted=1');
    expect(matchCondition(polluted, {})).toBe(false);
    expect(matchCondition(parseCondition('__proto__.polluted!=1'), {})).toBe(false);
    // A server may send "__proto__" as a key: that is its own data, and reading it changes nothing.
    expect(matchCondition(polluted, JSON.parse('{"__proto__":{"polluted":1}}'))).toBe(true);
    expect(matchCondition(parseCondition('constructor.prototype.polluted=1'), {})).toBe(false);
    expect(lookupPath({}, ['constructor'])).toEqual({ found: false });
    expect(lookupPath({}, ['toString'])).toEqual({ found: false });
    expect(lookupPath([], ['constructor', 'prototype'])).toEqual({ found: false });
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});
