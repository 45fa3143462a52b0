import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { pollOperation } from '../../src/operation/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import type { TestServer } from '../helpers/server.js';
import { instantEnv } from './helpers/instant-env.js';
import { empty, json, lines, routes, type Answer } from './helpers/routes.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = { method: 'POST', body: '{}' } as const;
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An answer that is held: `arrived` resolves when the request is in, `closed` when the client hung up; `answer` sends it after all. */
function held(): { answer: Answer; arrived: Promise<ServerResponse>; closed: Promise<void> } {
  let arrive!: (res: ServerResponse) => void;
  let close!: () => void;
  const arrived = new Promise<ServerResponse>((resolve) => (arrive = resolve));
  const closed = new Promise<void>((resolve) => (close = resolve));
  const answer: Answer = (res) => {
    res.on('close', () => !res.writableEnded && close());
    arrive(res);
  };
  return { answer, arrived, closed };
}

describe('the caller\'s signal, at every step', () => {
  it('during the start: the start request is cancelled, nothing else is sent', async () => {
    const start = held();
    server = await routes({ 'POST /jobs': [start.answer], 'GET /ops/1': [json(200, { status: 'Succeeded' })] });
    const controller = new AbortController();
    const reason = new Error('left during the start');
    const done = pollOperation(`${server.url}/jobs`, { ...post, signal: controller.signal, operation: { env: instantEnv().env } });
    await start.arrived;
    controller.abort(reason);
    await expect(done).rejects.toBe(reason);
    await start.closed;
    expect(lines(server)).toEqual(['POST /jobs']);
  });

  it('during the wait before the first poll (a 202 without Retry-After waits interval): no poll is sent', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })], 'GET /jobs/1': [json(200, { status: 'Succeeded' })] });
    const clock = new VirtualClock({ recordDelays: true });
    const controller = new AbortController();
    const reason = new Error('left during the wait');
    const done = pollOperation(`${server.url}/jobs`, {
      ...post,
      signal: controller.signal,
      operation: { env: clock.env(), interval: 60_000, onEvent: (e) => e.type === 'wait' && setImmediate(() => controller.abort(reason)) },
    });
    await expect(done).rejects.toBe(reason);
    expect(clock.delays).toEqual([60_000]);
    expect(lines(server)).toEqual(['POST /jobs']);
  });

  it('during the wait between polls: nothing more is sent', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1', 'retry-after': '0' })], 'GET /jobs/1': [json(200, { status: 'Running' }, { 'retry-after': '30' })] });
    const clock = new VirtualClock({ recordDelays: true });
    const controller = new AbortController();
    const reason = new Error('left between polls');
    const done = pollOperation(`${server.url}/jobs`, {
      ...post,
      signal: controller.signal,
      operation: { env: clock.env(), interval: 1000, onUpdate: () => setImmediate(() => controller.abort(reason)) },
    });
    await expect(done).rejects.toBe(reason);
    expect(lines(server)).toEqual(['POST /jobs', 'GET /jobs/1']);
  });

  it('during the result\'s request: it is cancelled, and the operation rejects with the reason at once', async () => {
    const result = held();
    server = await routes({
      'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: '/results/1' })],
      'GET /results/1': [result.answer],
    });
    const controller = new AbortController();
    const reason = new Error('left during the result');
    const done = pollOperation(`${server.url}/jobs`, { ...post, signal: controller.signal, operation: { env: instantEnv().env } });
    const res = await result.arrived;
    // Were the signal not handed on, the result would come after all, 1.5 s later.
    const late = setTimeout(() => res.writableEnded || res.end('{"late":true}'), 1500);
    controller.abort(reason);
    try {
      await expect(done).rejects.toBe(reason);
      await result.closed;
    } finally {
      clearTimeout(late);
    }
  });

  it("during the result's body: its reading stops with the reason", async () => {
    const result = held();
    server = await routes({
      'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: '/results/1' })],
      'GET /results/1': [result.answer],
    });
    const controller = new AbortController();
    const reason = new Error('left during the body');
    const { env } = instantEnv();
    const done = pollOperation(`${server.url}/jobs`, {
      ...post,
      signal: controller.signal,
      operation: {
        env,
        parse: async (response) => {
          if (response.url.endsWith('/results/1')) controller.abort(reason);
          const text = await response.text();
          return text === '' ? undefined : (JSON.parse(text) as unknown);
        },
      },
    });
    const res = await result.arrived;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"answer":');
    await expect(done).rejects.toBe(reason);
  });
});

describe('operation.timeout, at every step', () => {
  it("passing while the result's body comes in: a TimeoutError, as poll and fetchWithRetry give, not a ParseError", async () => {
    const result = held();
    server = await routes({
      'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: '/results/1' })],
      'GET /results/1': [result.answer],
    });
    const clock = new VirtualClock();
    let headersIn!: () => void;
    const headers = new Promise<void>((resolve) => (headersIn = resolve));
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await globalThis.fetch(input, init);
      if (String(input).endsWith('/results/1')) headersIn();
      return response;
    }) as typeof globalThis.fetch;
    const done = pollOperation(`${server.url}/jobs`, { ...post, operation: { env: clock.env(), fetch, timeout: 5000, interval: 0 } }).catch((e: unknown) => e);
    const res = await result.arrived;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"answer":');
    await headers;
    await tick();
    // The body stalls; the deadline passes while it is read.
    await clock.advance(5000);
    const error = await done;
    expect(error).toBeInstanceOf(DOMException);
    expect(error).toMatchObject({ name: 'TimeoutError', message: 'The operation ran past its 5000 ms deadline' });
    expect(lines(server)).toEqual(['POST /jobs', 'GET /ops/1', 'GET /results/1']);
  });

  it('a body that does not parse before the deadline is still a ParseError', async () => {
    server = await routes({
      'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: '/results/1' })],
      'GET /results/1': [(res) => res.end('{"answer":')],
    });
    const error = await pollOperation(`${server.url}/jobs`, { ...post, operation: { interval: 0, timeout: 60_000 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ParseError', url: `${server.url}/results/1` });
  });
});
