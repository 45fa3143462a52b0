import { describe, expect, it } from 'vitest';
import { monitorOf, operationState } from '../../src/operation/operation-state.js';
import { resultIn, resultUrl, type OperationStart } from '../../src/operation/operation-result.js';
import type { OperationAnswer } from '../../src/operation/index.js';

/** The monitor the answers below come from (unless redirected). */
const MONITOR = 'https://api.example/ops/1';

const answer = (status: number, body: unknown, more: Partial<OperationAnswer> = {}): OperationAnswer => ({
  status,
  body,
  headers: new Headers(),
  url: MONITOR,
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
    expect(operationState(answer(200, { status }), MONITOR)).toBe(state);
    expect(operationState(answer(202, { status }), MONITOR)).toBe(state);
  });

  it("ARM's properties.provisioningState counts when there is no status", () => {
    expect(operationState(answer(200, { properties: { provisioningState: 'Updating' } }), MONITOR)).toBe('running');
    expect(operationState(answer(200, { properties: { provisioningState: 'Succeeded' } }), MONITOR)).toBe('succeeded');
    expect(operationState(answer(200, { status: 'Failed', properties: { provisioningState: 'Succeeded' } }), MONITOR)).toBe('failed');
  });

  it("Google's done: false running, true with error failed, true otherwise succeeded (done wins over status)", () => {
    expect(operationState(answer(200, { name: 'operations/1', done: false }), MONITOR)).toBe('running');
    expect(operationState(answer(200, { name: 'operations/1', done: true, response: { id: 1 } }), MONITOR)).toBe('succeeded');
    expect(operationState(answer(200, { name: 'operations/1', done: true, error: { code: 3, message: 'bad' } }), MONITOR)).toBe('failed');
    expect(operationState(answer(200, { done: true, status: 'Running' }), MONITOR)).toBe('succeeded');
  });

  it('a body that says nothing: a 202 is running, any other 2xx the end', () => {
    for (const body of [undefined, null, 'text', 42, [], { id: 1 }]) {
      expect(operationState(answer(202, body), MONITOR)).toBe('running');
      expect(operationState(answer(200, body), MONITOR)).toBe('succeeded');
      expect(operationState(answer(201, body), MONITOR)).toBe('succeeded');
      expect(operationState(answer(204, body), MONITOR)).toBe('succeeded');
    }
  });

  it('a redirect that keeps the monitor\'s path (a trailing slash, http to https, another host or query) only moved it: the body decides', () => {
    for (const url of ['https://api.example/ops/1/', 'http://api.example/ops/1', 'https://eu.api.example/ops/1', 'https://api.example/ops/1?region=eu', 'https://api.example/ops/1//']) {
      const moved = (status: number, body: unknown) => answer(status, body, { redirected: true, url });
      expect(operationState(moved(200, { status: 'Running' }), MONITOR)).toBe('running');
      expect(operationState(moved(200, { name: 'operations/1', done: false }), MONITOR)).toBe('running');
      expect(operationState(moved(200, { status: 'Failed' }), MONITOR)).toBe('failed');
      expect(operationState(moved(200, { status: 'Succeeded' }), MONITOR)).toBe('succeeded');
      expect(operationState(moved(202, undefined), MONITOR)).toBe('running');
      expect(operationState(moved(200, undefined), MONITOR)).toBe('succeeded');
    }
    // A monitor whose own URL ends in a slash, redirected to the same path without it.
    expect(operationState(answer(200, { status: 'Running' }, { redirected: true, url: MONITOR }), `${MONITOR}/`)).toBe('running');
  });

  it('a redirect to another path (a 303 to the result) is over: failed or canceled only if the result says so, any other word its own state', () => {
    const atResult = (status: number, body: unknown) => answer(status, body, { redirected: true, url: 'https://api.example/results/1' });
    // A created machine is "Running"; an export's record is "archived": neither is the operation's state.
    expect(operationState(atResult(200, { status: 'Running' }), MONITOR)).toBe('succeeded');
    expect(operationState(atResult(200, { status: 'archived' }), MONITOR)).toBe('succeeded');
    expect(operationState(atResult(200, { done: false }), MONITOR)).toBe('succeeded');
    expect(operationState(atResult(200, undefined), MONITOR)).toBe('succeeded');
    expect(operationState(atResult(200, { properties: { provisioningState: 'Failed' } }), MONITOR)).toBe('failed');
    expect(operationState(atResult(200, { status: 'Canceled' }), MONITOR)).toBe('canceled');
    expect(operationState(atResult(200, { done: true, error: { message: 'no' } }), MONITOR)).toBe('failed');
    // A 202 there is the monitor moved to a new path, still running; and without a redirect, the path alone says nothing.
    expect(operationState(atResult(202, { status: 'Running' }), MONITOR)).toBe('running');
    expect(operationState(atResult(202, undefined), MONITOR)).toBe('running');
    expect(operationState(answer(200, { status: 'Running' }, { url: 'https://api.example/results/1' }), MONITOR)).toBe('running');
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
    expect(resultUrl(final, story('operation-location'))).toEqual({ url: 'https://api.example/results/1', namedBy: "the final status's resourceLocation" });
    expect(resultUrl(answer(200, { status: 'Succeeded' }, { headers: new Headers({ location: 'r/2' }) }), story('location'))).toEqual({
      url: 'https://api.example/ops/r/2',
      namedBy: "the final status's Location header",
    });
  });

  it("beside an Operation-Location or Azure-AsyncOperation monitor: the start's Location, else a PUT or PATCH's own URL", () => {
    const done = answer(200, { status: 'Succeeded' });
    expect(resultUrl(done, story('azure-asyncoperation', { location: 'https://api.example/results/9' }))).toEqual({
      url: 'https://api.example/results/9',
      namedBy: "the start answer's Location header",
    });
    const own = { url: 'https://api.example/v1/things/7', namedBy: 'the start URL' };
    expect(resultUrl(done, story('operation-location', { method: 'PUT' }))).toEqual(own);
    expect(resultUrl(done, story('azure-asyncoperation', { method: 'PATCH' }))).toEqual(own);
    expect(resultUrl(done, story('location', { method: 'PUT' }))).toBeUndefined();
    expect(resultUrl(done, story('option', { method: 'PUT' }))).toBeUndefined();
    expect(resultUrl(done, story('operation-location'))).toBeUndefined();
    // A Location that names the monitor itself is not a result.
    expect(resultUrl(done, story('operation-location', { location: 'https://api.example/ops/1' }))).toBeUndefined();
    // A Location monitor's own start Location is the monitor: nothing more to fetch.
    expect(resultUrl(done, story('location', { location: 'https://api.example/ops/1', method: 'PUT' }))).toBeUndefined();
  });

  it("an answer redirected to another path, or Google's response, is the result itself; one redirected to the monitor's own path is not", () => {
    expect(resultUrl(answer(200, { resourceLocation: '/x' }, { redirected: true, url: 'https://api.example/files/1' }), story('location'))).toBeUndefined();
    expect(resultUrl(answer(200, { status: 'Succeeded', resourceLocation: '/x' }, { redirected: true, url: `${MONITOR}/` }), story('location'))).toEqual({
      url: 'https://api.example/x',
      namedBy: "the final status's resourceLocation",
    });
    // A `response` without `done: true` is not Google's: the Azure body's resourceLocation still holds the result.
    expect(resultUrl(answer(200, { status: 'Succeeded', response: 1, resourceLocation: '/r' }), story('operation-location'))?.url).toBe('https://api.example/r');
    expect(resultIn(answer(200, { done: false, response: 1 }))).toEqual({ done: false, response: 1 });
    const google = answer(200, { done: true, response: { id: 3 } });
    expect(resultUrl(google, story('option'))).toBeUndefined();
    expect(resultIn(google)).toEqual({ id: 3 });
    expect(resultIn(answer(200, { id: 4 }))).toEqual({ id: 4 });
  });
});
