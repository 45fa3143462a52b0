import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConditionSyntaxError, matchCondition, parseCondition } from '../../src/cli/condition.js';
import { FC_RUNS } from '../property/runs.js';

const RUNS = FC_RUNS;

/** Text built from the characters the grammar cares about, so cases hit its edges. */
const conditionText = fc.oneof(
  fc.string(),
  fc.array(fc.constantFrom('a', 'b', '0', '.', '=', '!', '<', '>', ',', '"', '\\', ' ', '-', '1', 'e', 'true', 'null', '__proto__', 'constructor', 'prototype'), { maxLength: 12 }).map((parts) => parts.join('')),
);

describe('condition properties', () => {
  it('any text either parses or fails with a ConditionSyntaxError, never another error', () => {
    fc.assert(
      fc.property(conditionText, (text) => {
        try {
          const condition = parseCondition(text);
          expect(condition.source).toBe(text);
          expect(condition.path.length).toBeGreaterThan(0);
        } catch (error) {
          expect(error).toBeInstanceOf(ConditionSyntaxError);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('matching never throws, never changes the body and never reaches a prototype', () => {
    fc.assert(
      fc.property(conditionText, fc.jsonValue(), (text, body) => {
        let condition;
        try {
          condition = parseCondition(text);
        } catch {
          return;
        }
        const before = JSON.stringify(body);
        const result = matchCondition(condition, body);
        expect(typeof result).toBe('boolean');
        expect(JSON.stringify(body)).toBe(before);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  it('a scalar written unquoted or quoted round-trips: path=<value> matches a body holding it', () => {
    const scalar = fc.oneof(fc.boolean(), fc.constant(null), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string());
    fc.assert(
      fc.property(scalar, (value) => {
        const written = JSON.stringify(value); // strings quoted, other scalars bare
        expect(matchCondition(parseCondition(`v=${written}`), { v: JSON.parse(written) })).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
