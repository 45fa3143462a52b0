import { afterEach, describe, expect, it } from 'vitest';
import { poll } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';

// What poll is given, at the edges the mutation run of src/poll found untested: an answer
// from fetch without a status, the global fetch passed as `fetch`, and a Request-like input
// whose `signal` is null.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Job {
  status: string;
}
const isDone = (job: Job): boolean => job.status === 'done';

describe('poll: an answer without a status', () => {
  it('is refused as no Response, even with headers and a body that parses', async () => {
    const body = new Response('{"status":"done"}').body;
    const statusless = { headers: new Headers({ 'content-type': 'application/json' }), body, bodyUsed: false };
    const fetchImpl = (async () => statusless) as unknown as typeof fetch;
    const error = await poll<Job>('http://127.0.0.1:2/', { isDone, fetch: fetchImpl, env: recordingEnv().env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('Expected `fetch` to resolve to a Response, got [object Object]');
  });
});

describe('poll: the names in `init` when `fetch` is the global fetch', () => {
  it('are checked as they are when no fetch is given: an unknown one is refused, nothing sent', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const error = await poll<Job>(server.url, { isDone, fetch: globalThis.fetch, init: { methd: 'POST' } as RequestInit, env: recordingEnv().env }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('Unknown option `init.methd`: did you mean `init.method`?');
    expect(server.requests).toHaveLength(0);
  });
});

describe('poll: a Request-like input whose `signal` is null', () => {
  it('(as node-fetch gives a Request made without one) is no signal: fetch gets none, as when nothing can abort', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const requestLike = {
      url: server.url,
      method: 'GET',
      signal: null,
      clone() {
        return this;
      },
    };
    const signals: Array<AbortSignal | null | undefined> = [];
    const fetchImpl = ((input: { url: string }, init?: RequestInit) => {
      signals.push(init?.signal);
      return fetch(input.url, init);
    }) as unknown as typeof fetch;
    const job = await poll<Job>(requestLike as unknown as Request, { isDone, fetch: fetchImpl, env: recordingEnv().env });
    expect(job).toEqual({ status: 'done' });
    expect(signals).toEqual([undefined]);
    expect(server.requests.map((r) => [r.method, r.path])).toEqual([['GET', '/']]);
  });
});
