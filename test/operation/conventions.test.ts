import { describe, expect, it } from 'vitest';
import { monitorOf, operationState } from '../../src/operation/operation-state.js';
import { resultIn, resultUrl, type OperationStart } from '../../src/operation/operation-result.js';
import type { OperationAnswer } from '../../src/operation/index.js';

const answer = (status: number, body: unknown, more: Partial<OperationAnswer> = {}): OperationAnswer => ({
  status,
  body,
  headers: new Headers(),
  url: 'https://api.example/ops/1',
  redirected: false,
  ...more,
});

describe('operationState: terminal states by the conventions', () => {
  it.each([
    ['Succeeded', 'succeeded'],
    ['succeeded', 'succeeded'],
    ['SUCCEEDED', 'succeeded'],
    ['Failed', 'failed'],
    ['FAILED', 'failed'],
    ['Canceled', 'canceled'],
    ['cancelled', 'canceled'],
    ['NotStarted', 'running'],
    ['Running', 'running'],
    ['InProgress', 'running'],
    ['whatever-else', 'running'],
  ])('Azure status %s is %s, on a 200 as on a 202', (status, state) => {
    expect(operationState(answer(200, { status }))).toBe(state);
    expect(operationState(answer(202, { status }))).toBe(state);
  });

  it("ARM's properties.provisioningState counts when there is no status", () => {
    expect(operationState(answer(200, { properties: { provisioningState: 'Updating' } }))).toBe('running');
    expect(operationState(answer(200, { properties: { provisioningState: 'Succeeded' } }))).toBe('succeeded');
    expect(operationState(answer(200, { status: 'Failed', properties: { provisioningState: 'Succeeded' } }))).toBe('failed');
  });

  it("Google's done: false running, true with error failed, true otherwise succeeded (done wins over status)", () => {
    expect(operationState(answer(200, { name: 'operations/1', done: false }))).toBe('running');
    expect(operationState(answer(200, { name: 'operations/1', done: true, response: { id: 1 } }))).toBe('succeeded');
    expect(operationState(answer(200, { name: 'operations/1', done: true, error: { code: 3, message: 'bad' } }))).toBe('failed');
    expect(operationState(answer(200, { done: true, status: 'Running' }))).toBe('succeeded');
  });

  it('a body that says nothing: a 202 is running, any other 2xx the end', () => {
    for (const body of [undefined, null, 'text', 42, [], { id: 1 }]) {
      expect(operationState(answer(202, body))).toBe('running');
      expect(operationState(answer(200, body))).toBe('succeeded');
      expect(operationState(answer(201, body))).toBe('succeeded');
      expect(operationState(answer(204, body))).toBe('succeeded');
    }
  });

  it('a redirect followed to get here (a 303 to the result) succeeded, whatever the result says of itself', () => {
    expect(operationState(answer(200, { status: 'Running' }, { redirected: true }))).toBe('succeeded');
  });
});

describe('monitorOf: where the start says to poll', () => {
  const start = (status: number, headers: Record<string, string>) => ({ status, headers: new Headers(headers), url: 'https://api.example/v1/jobs' });

  it('Operation-Location, then Azure-AsyncOperation, then a 202 Location, resolved against the URL that answered', () => {
    expect(monitorOf(start(202, { 'operation-location': 'ops/1', 'azure-asyncoperation': '/b', location: '/c' }))).toEqual({ url: 'https://api.example/v1/ops/1', via: 'operation-location' });
    expect(monitorOf(start(201, { 'azure-asyncoperation': '/b', location: '/c' }))).toEqual({ url: 'https://api.example/b', via: 'azure-asyncoperation' });
    expect(monitorOf(start(202, { location: '/c?x=1' }))).toEqual({ url: 'https://api.example/c?x=1', via: 'location' });
    expect(monitorOf(start(202, { location: 'https://other.example/m' }))).toEqual({ url: 'https://other.example/m', via: 'location' });
  });

  it('a Location on a 200 or 201 names the created resource, not a monitor; a header no URL can be made of is none', () => {
    expect(monitorOf(start(201, { location: '/jobs/1' }))).toBeUndefined();
    expect(monitorOf(start(200, { location: '/jobs/1' }))).toBeUndefined();
    expect(monitorOf(start(202, {}))).toBeUndefined();
    expect(monitorOf(start(202, { 'operation-location': 'http://[bad' }))).toBeUndefined();
  });
});

describe('resultUrl: where the result of a succeeded operation is', () => {
  const story = (via: OperationStart['monitor']['via'], more: Partial<OperationStart> = {}): OperationStart => ({
    url: 'https://api.example/v1/things/7',
    method: 'POST',
    location: undefined,
    monitor: { url: 'https://api.example/ops/1', via },
    ...more,
  });

  it("resourceLocation first, then the final answer's Location, both resolved against the monitor", () => {
    const final = answer(200, { status: 'Succeeded', resourceLocation: '/results/1' }, { headers: new Headers({ location: '/elsewhere' }) });
    expect(resultUrl(final, story('operation-location'))).toBe('https://api.example/results/1');
    expect(resultUrl(answer(200, { status: 'Succeeded' }, { headers: new Headers({ location: 'r/2' }) }), story('location'))).toBe('https://api.example/ops/r/2');
  });

  it("beside an Operation-Location or Azure-AsyncOperation monitor: the start's Location, else a PUT or PATCH's own URL", () => {
    const done = answer(200, { status: 'Succeeded' });
    expect(resultUrl(done, story('azure-asyncoperation', { location: 'https://api.example/results/9' }))).toBe('https://api.example/results/9');
    expect(resultUrl(done, story('operation-location', { method: 'PUT' }))).toBe('https://api.example/v1/things/7');
    expect(resultUrl(done, story('operation-location', { method: 'PATCH' }))).toBe('https://api.example/v1/things/7');
    expect(resultUrl(done, story('operation-location'))).toBeUndefined();
    // A Location that names the monitor itself is not a result.
    expect(resultUrl(done, story('operation-location', { location: 'https://api.example/ops/1' }))).toBeUndefined();
    // A Location monitor's own start Location is the monitor: nothing more to fetch.
    expect(resultUrl(done, story('location', { location: 'https://api.example/ops/1', method: 'PUT' }))).toBeUndefined();
  });

  it("a redirected answer or Google's response is the result itself", () => {
    expect(resultUrl(answer(200, { resourceLocation: '/x' }, { redirected: true }), story('location'))).toBeUndefined();
    const google = answer(200, { done: true, response: { id: 3 } });
    expect(resultUrl(google, story('option'))).toBeUndefined();
    expect(resultIn(google)).toEqual({ id: 3 });
    expect(resultIn(answer(200, { id: 4 }))).toEqual({ id: 4 });
  });
});
