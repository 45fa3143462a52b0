import { describe, expect, it } from 'vitest';
import { ConditionSyntaxError, lookupPath, matchCondition, parseCondition } from '../../src/cli/condition.js';

const valuesOf = (source: string): unknown => (parseCondition(source) as { values: unknown }).values;
const matches = (condition: string, body: unknown): boolean => matchCondition(parseCondition(condition), body);

describe('parseCondition', () => {
  it('reads each operator, longest first', () => {
    expect(parseCondition('status=done')).toEqual({ source: 'status=done', path: ['status'], op: '=', values: ['done'] });
    expect(parseCondition('status!=running')).toMatchObject({ op: '!=', values: ['running'] });
    expect(parseCondition('progress>=100')).toMatchObject({ op: '>=', value: 100 });
    expect(parseCondition('progress<=5')).toMatchObject({ op: '<=', value: 5 });
    expect(parseCondition('progress>1.5')).toMatchObject({ op: '>', value: 1.5 });
    expect(parseCondition('temp<-3')).toMatchObject({ op: '<', value: -3 });
  });

  it('reads values as JSON scalars, quoted ones as strings', () => {
    expect(valuesOf('x=done,3,true,false,null,-2.5e1,01')).toEqual(['done', 3, true, false, null, -25, '01']);
    expect(valuesOf('x="3"')).toEqual(['3']);
    expect(valuesOf('x="a, b",c')).toEqual(['a, b', 'c']);
    expect(valuesOf('x="say \\"hi\\""')).toEqual(['say "hi"']);
    expect(valuesOf('x=""')).toEqual(['']);
    expect(parseCondition(' job.state = done , failed ')).toMatchObject({ path: ['job', 'state'], values: ['done', 'failed'] });
  });

  it('splits dot paths, array indices included', () => {
    expect(parseCondition('items.0.done=true').path).toEqual(['items', '0', 'done']);
  });

  it.each([
    ['status', 'no operator'],
    ['=done', 'the path is empty'],
    ['a..b=1', 'empty path segment'],
    ['.a=1', 'empty path segment'],
    ['status=', 'a value is empty'],
    ['status=a,,b', 'a value is empty'],
    ['status="open', 'a quote is not closed'],
    ['progress>=abc', "'>=' needs a number"],
    ['progress>', "'>' needs a number"],
    ['progress>1,2', "'>' needs a number"],
    ['status!done', "'!' is not an operator"],
    ['x="a"b', 'not a valid quoted string'],
  ])('refuses %j (%s)', (source, problem) => {
    expect(() => parseCondition(source)).toThrow(ConditionSyntaxError);
    expect(() => parseCondition(source)).toThrow(problem);
    expect(() => parseCondition(source)).toThrow(`Invalid condition '${source}'`);
  });
});

describe('matchCondition', () => {
  it('compares as JSON scalars, strictly', () => {
    expect(matches('status=done', { status: 'done' })).toBe(true);
    expect(matches('count=3', { count: 3 })).toBe(true);
    expect(matches('count=3', { count: '3' })).toBe(false);
    expect(matches('count="3"', { count: '3' })).toBe(true);
    expect(matches('ok=true', { ok: true })).toBe(true);
    expect(matches('ok=true', { ok: 'true' })).toBe(false);
    expect(matches('error=null', { error: null })).toBe(true);
    expect(matches('ratio=1.0', { ratio: 1 })).toBe(true);
  });

  it('matches any of several values', () => {
    expect(matches('status=done,failed', { status: 'failed' })).toBe(true);
    expect(matches('status=done,failed', { status: 'running' })).toBe(false);
    expect(matches('status!=queued,running', { status: 'done' })).toBe(true);
    expect(matches('status!=queued,running', { status: 'running' })).toBe(false);
  });

  it('compares numbers only with > >= < <=', () => {
    expect(matches('progress>=100', { progress: 100 })).toBe(true);
    expect(matches('progress>100', { progress: 100 })).toBe(false);
    expect(matches('progress<50', { progress: 49.9 })).toBe(true);
    expect(matches('progress<=50', { progress: 51 })).toBe(false);
    expect(matches('progress>=1', { progress: '100' })).toBe(false);
  });

  it('follows dot paths into objects and arrays', () => {
    const body = { job: { state: 'done' }, items: [{ done: false }, { done: true }] };
    expect(matches('job.state=done', body)).toBe(true);
    expect(matches('items.1.done=true', body)).toBe(true);
    expect(matches('items.0.done=true', body)).toBe(false);
    expect(matches('items.length=2', body)).toBe(true);
    expect(matches('items.2.done=true', body)).toBe(false);
  });

  it('matches nothing on a missing path or a non-scalar, not even !=', () => {
    expect(matches('status!=done', {})).toBe(false);
    expect(matches('job!=x', { job: { state: 'x' } })).toBe(false);
    expect(matches('job=x', { job: ['x'] })).toBe(false);
    expect(matches('status=done', null)).toBe(false);
    expect(matches('status=done', 'status=done')).toBe(false);
    expect(matches('length=4', 'done')).toBe(false);
  });

  it('never reads through prototypes', () => {
    expect(lookupPath({}, ['constructor', 'prototype'])).toEqual({ found: false });
    expect(lookupPath({}, ['__proto__'])).toEqual({ found: false });
    expect(lookupPath([], ['map'])).toEqual({ found: false });
    expect(matches('toString!=x', {})).toBe(false);
    expect(matches('__proto__.polluted=1', JSON.parse('{"__proto__":{"polluted":1}}'))).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
