import { afterEach, describe, expect, it } from 'vitest';
import { pollOperation } from '../../src/operation/index.js';
import { REFUSED_URL, type TestServer } from '../helpers/server.js';
import { instantEnv } from './helpers/instant-env.js';
import { recordingFetch } from './helpers/recording-fetch.js';
import { empty, json, lines, routes } from './helpers/routes.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const table = () => ({
  'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })],
  'GET /ops/1': [json(200, { status: 'Running' }), json(200, { status: 'Succeeded', resourceLocation: '/results/1' })],
  'GET /results/1': [json(200, { answer: 42 })],
});

/** Node's fetch hands each request to undici's global dispatcher, made by the first fetch of the process. */
async function globalDispatcher(url: string): Promise<{ dispatch: (options: { origin?: unknown }, handler: unknown) => boolean }> {
  await (await fetch(url)).arrayBuffer();
  type Dispatcher = { dispatch: (options: { origin?: unknown }, handler: unknown) => boolean };
  return (globalThis as unknown as Record<symbol, Dispatcher>)[Symbol.for('undici.globalDispatcher.1')]!;
}

describe('the polls and the result carry every field of the start but its body, method and integrity', () => {
  it("Node's dispatcher, redirect, keepalive, cache, priority, referrer policy, credentials and mode, on every request", async () => {
    server = await routes(table());
    const { env } = instantEnv();
    const dispatcher = { dispatch: () => false };
    const fields = { redirect: 'error', keepalive: true, cache: 'no-store', priority: 'high', referrerPolicy: 'origin', credentials: 'include', mode: 'cors' } as const;
    // Records each init, then fetches without the dispatcher (one that routes nowhere): the next test routes through a real one.
    const recorded: RequestInit[] = [];
    const spy = ((input: RequestInfo | URL, init: RequestInit & { dispatcher?: unknown } = {}) => {
      recorded.push(init);
      const { dispatcher: _d, ...rest } = init;
      return fetch(input, rest);
    }) as typeof globalThis.fetch;
    const init = { method: 'POST', body: '{}', integrity: '', ...fields, dispatcher } as RequestInit;
    expect(await pollOperation(`${server.url}/jobs`, { ...init, operation: { env, fetch: spy } })).toEqual({ answer: 42 });
    expect(lines(server)).toEqual(['POST /jobs', 'GET /ops/1', 'GET /ops/1', 'GET /results/1']);
    expect(recorded).toHaveLength(4);
    for (const sent of recorded) {
      expect(sent).toMatchObject(fields);
      expect((sent as { dispatcher?: unknown }).dispatcher).toBe(dispatcher);
    }
    for (const sent of recorded.slice(1)) {
      expect(sent.body).toBeUndefined();
      expect(sent.method).toBeUndefined();
      expect(sent).not.toHaveProperty('integrity');
    }
  });

  it('a dispatcher that routes every request (a proxy): the polls and the result go through it too', async () => {
    server = await routes(table());
    const global = await globalDispatcher(`${server.url}/warm-up`);
    const origin = server.url;
    let routed = 0;
    // Sends every request to the test server, whatever its URL names: as a proxy would.
    const dispatcher = {
      dispatch: (options: { origin?: unknown }, handler: unknown) => {
        routed += 1;
        return global.dispatch({ ...options, origin }, handler);
      },
    };
    const { env } = instantEnv();
    const init = { method: 'POST', body: '{}', dispatcher } as RequestInit;
    // Nothing listens at REFUSED_URL: only the dispatcher reaches the server.
    expect(await pollOperation(`${REFUSED_URL}/jobs`, { ...init, operation: { env, retries: 0 } })).toEqual({ answer: 42 });
    expect(lines(server)).toEqual(['GET /warm-up', 'POST /jobs', 'GET /ops/1', 'GET /ops/1', 'GET /results/1']);
    expect(routed).toBe(4);
  });

  it("a Request input's own fields are carried, under init's", async () => {
    server = await routes(table());
    const { fetch, calls } = recordingFetch();
    const { env } = instantEnv();
    const request = new Request(`${server.url}/jobs`, { method: 'POST', body: '{}', credentials: 'include', cache: 'no-store', redirect: 'error', referrerPolicy: 'origin' });
    await pollOperation(request, { redirect: 'follow', operation: { env, fetch } });
    for (const { init } of calls.slice(1)) expect(init).toMatchObject({ credentials: 'include', redirect: 'follow', referrerPolicy: 'origin', mode: 'cors' });
    expect(calls.slice(1).map((c) => c.init.cache)).toEqual(['no-store', 'no-store', 'no-store']);
  });
});
