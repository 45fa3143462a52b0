import { describe, expect, it } from 'vitest';
import { checkNames } from '../../src/options/check.js';
import { distance, nearest, unknownOption } from '../../src/options/unknown-option.js';

describe('distance: edits between two names, case aside', () => {
  it.each([
    ['isDone', 'isDone', 0],
    ['isdone', 'isDone', 0],
    ['retires', 'retries', 1], // two neighbours swapped: one edit
    ['intervalMs', 'interval', 2],
    ['intrval', 'interval', 1],
    ['', 'cap', 3],
    ['base', '', 4],
    ['timeout', 'attemptTimeout', 7],
  ])('%s -> %s: %i', (a, b, edits) => {
    expect(distance(a, b)).toBe(edits);
    expect(distance(b, a)).toBe(edits);
  });
});

describe('nearest: the known name meant, if one is near enough', () => {
  const known = ['isDone', 'interval', 'retries', 'timeout', 'requestTimeout', 'init'];
  it.each([
    ['isdone', 'isDone'],
    ['intervalMs', 'interval'],
    ['retires', 'retries'],
    ['requesttimeout', 'requestTimeout'],
    ['inti', 'init'],
  ])('%s -> %s', (name, meant) => {
    expect(nearest(name, known)).toBe(meant);
  });

  it('none beyond a third of the letters (one edit up to five letters)', () => {
    expect(nearest('foo', known)).toBeUndefined();
    expect(nearest('isOver', known)).toBeUndefined();
    expect(nearest('x', ['y', 'xy'])).toBe('y');
    expect(nearest('abcd', ['abcdef'])).toBeUndefined();
    expect(nearest('abcdef', ['abcd'])).toBe('abcd');
  });

  it('the first of equals', () => {
    expect(nearest('cab', ['cap', 'car'])).toBe('cap');
  });
});

describe('unknownOption: the TypeError, word for word', () => {
  it('names the option and what was meant', () => {
    const error = unknownOption('isdone', ['isDone', 'interval']);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('Unknown option `isdone`: did you mean `isDone`?');
  });

  it('with a path, for a nested object', () => {
    expect(unknownOption('retires', ['retries', 'timeout'], 'retry.').message).toBe('Unknown option `retry.retires`: did you mean `retry.retries`?');
  });

  it('with no name near, the names there are', () => {
    expect(unknownOption('zzz', ['min', 'max', 'factor']).message).toBe('Unknown option `zzz`: expected one of `min`, `max`, `factor`');
  });
});

describe('checkNames: the first own name not known', () => {
  it('refuses it, or sends it where it belongs, or lets another check have it', () => {
    expect(() => checkNames({ min: 1, mx: 2 }, ['min', 'max'])).toThrow(new TypeError('Unknown option `mx`: did you mean `max`?'));
    const elsewhere = (name: string): string | true | undefined => (name === 'method' ? 'given as `init.method`' : name === 'passed' ? true : undefined);
    expect(() => checkNames({ method: 'POST' }, ['init'], { elsewhere })).toThrow(new TypeError('Expected `method` to be given as `init.method`'));
    expect(() => checkNames({ passed: 1, init: {} }, ['init'], { elsewhere })).not.toThrow();
  });

  it('reads own names only, and nothing of a value that is no object', () => {
    expect(() => checkNames(Object.create({ inherited: 1 }) as object, ['min'])).not.toThrow();
    expect(() => checkNames('min', ['max'])).not.toThrow();
    expect(() => checkNames(null, ['max'])).not.toThrow();
    expect(() => checkNames({ [Symbol('x')]: 1 }, ['max'])).not.toThrow();
  });
});
