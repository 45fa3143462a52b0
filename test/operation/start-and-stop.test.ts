import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import { isHttpError, type HttpError } from '../../src/index.js';
import { pollOperation } from '../../src/operation/index.js';
import { REFUSED_URL, type TestServer } from '../helpers/server.js';
import { instantEnv } from './helpers/instant-env.js';
import { empty, json, lines, routes, type Answer } from './helpers/routes.js';

let server: TestServer | undefined;
afterEach(async () => {
  clearCooldowns();
  await server?.close();
  server = undefined;
});

const post = { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } } as const;

describe('the start request', () => {
  it('a 200 or 201 that names no monitor is the result at once (a 201 Location is the created resource)', async () => {
    server = await routes({ 'POST /now': [json(200, { id: 1 })], 'POST /made': [json(201, { id: 2 }, { location: '/made/2' })] });
    expect(await pollOperation(`${server.url}/now`, post)).toEqual({ id: 1 });
    expect(await pollOperation(`${server.url}/made`, post)).toEqual({ id: 2 });
    expect(lines(server)).toEqual(['POST /now', 'POST /made']);
  });

  it('a 202 that names no monitor rejects with a TypeError naming operationUrl', async () => {
    server = await routes({ 'POST /lost': [json(202, { ok: true })] });
    await expect(pollOperation(`${server.url}/lost`, post)).rejects.toThrow(
      new TypeError(`Expected \`operationUrl\` to find the operation: the 202 from ${server.url}/lost names no Operation-Location, Azure-AsyncOperation or Location`),
    );
  });

  it('a GET start with no init at all; its answer is the result', async () => {
    server = await routes({ 'GET /now': [json(200, { id: 3 })] });
    expect(await pollOperation(`${server.url}/now`)).toEqual({ id: 3 });
  });

  it("the start's body: one that does not parse is a ParseError when it is the result, and nothing when the answer names a monitor", async () => {
    const garbage = (status: number, headers: Record<string, string> = {}): Answer => (res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end('{"half":');
    };
    server = await routes({
      'POST /now': [garbage(200)],
      'POST /made': [garbage(201, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Succeeded' })],
    });
    await expect(pollOperation(`${server.url}/now`, post)).rejects.toMatchObject({ name: 'ParseError', status: 200, url: `${server.url}/now` });
    expect(await pollOperation(`${server.url}/made`, post)).toEqual({ status: 'Succeeded' });
  });

  it("a 202's body that the caller's parse cannot read is nothing: operationUrl still finds the monitor", async () => {
    server = await routes({ 'POST /jobs': [json(202, { name: 'operations/1' })], 'GET /v1/operations/1': [json(200, { done: true, response: 7 })] });
    const { env } = instantEnv();
    const parse = async (response: Response): Promise<unknown> => {
      if (response.status === 202) throw new Error('not for me');
      return response.json();
    };
    const result = await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, parse, operationUrl: ({ body }) => (body === undefined ? '/v1/operations/1' : '/wrong') } });
    expect(result).toBe(7);
  });

  it('a POST start is sent once: a 503 rejects with an HttpError after one request', async () => {
    server = await routes({ 'POST /jobs': [empty(503)] });
    const { env } = instantEnv();
    const error = await pollOperation(`${server.url}/jobs`, { ...post, operation: { env } }).catch((e: unknown) => e);
    expect(isHttpError(error)).toBe(true);
    expect((error as HttpError).status).toBe(503);
    expect(lines(server)).toEqual(['POST /jobs']);
  });

  it('with idempotencyKey the POST is retried, every attempt with the same key; the polls carry none', async () => {
    server = await routes({
      'POST /jobs': [empty(503, { 'retry-after': '2' }), empty(502), empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Succeeded' })],
    });
    const { env, delays } = instantEnv();
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, idempotencyKey: true, interval: 0 } })).toEqual({ status: 'Succeeded' });
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys).toEqual([keys[0], keys[0], keys[0], undefined]);
    expect(lines(server)).toEqual(['POST /jobs', 'POST /jobs', 'POST /jobs', 'GET /ops/1']);
    // The 503's Retry-After (2 s, plus the spread drawn at 0.5) before the second attempt.
    expect(delays[0]).toBe(2200);
  });

  it('a 4xx start rejects with an HttpError, body unread; so does a result that is gone', async () => {
    server = await routes({
      'POST /bad': [json(400, { error: 'no' })],
      'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: '/gone' })],
    });
    const { env } = instantEnv();
    const bad = (await pollOperation(`${server.url}/bad`, { ...post, operation: { env } }).catch((e: unknown) => e)) as HttpError;
    expect(bad.status).toBe(400);
    expect(await bad.response.json()).toEqual({ error: 'no' });
    await expect(pollOperation(`${server.url}/jobs`, { ...post, operation: { env } })).rejects.toMatchObject({ name: 'HttpError', status: 404, url: `${server.url}/gone` });
  });
});

describe('stopping: abort and timeout', () => {
  it('the signal stops the polls; nothing is sent after it', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })], 'GET /jobs/1': [json(200, { status: 'Running' })] });
    const controller = new AbortController();
    const reason = new Error('user left');
    let polls = 0;
    const done = pollOperation(`${server.url}/jobs`, {
      ...post,
      signal: controller.signal,
      operation: {
        interval: 5,
        onUpdate: () => {
          polls += 1;
          if (polls === 3) controller.abort(reason);
        },
      },
    });
    await expect(done).rejects.toBe(reason);
    const seen = server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests.length).toBe(seen);
    expect(lines(server)).toEqual(['POST /jobs', 'GET /jobs/1', 'GET /jobs/1', 'GET /jobs/1']);
  });

  it('an aborted signal sends nothing', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })] });
    const reason = new Error('already');
    await expect(pollOperation(`${server.url}/jobs`, { ...post, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(server.requests).toEqual([]);
  });

  it('timeout bounds the whole operation: a wait that would pass it rejects with a TimeoutError', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1', 'retry-after': '1' })], 'GET /jobs/1': [json(200, { status: 'Running' }, { 'retry-after': '60' })] });
    const error = await pollOperation(`${server.url}/jobs`, { ...post, operation: { timeout: 1500 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('TimeoutError');
    // One poll after the start's second: the 60 s it asked next is past the deadline, so it is not waited.
    expect(lines(server)).toEqual(['POST /jobs', 'GET /jobs/1']);
  });
});

describe('options are validated before anything is sent', () => {
  it.each([
    [{ interval: -1 }, 'Expected `operation.interval` to be a finite number >= 0'],
    [{ isDone: 'yes' }, 'Expected `operation.isDone` to be a function'],
    [{ isFailed: 1 }, 'Expected `operation.isFailed` to be a function'],
    [{ idempotencyKey: '' }, 'Expected `operation.idempotencyKey` to be a boolean or a non-empty string'],
    [{ operationUrl: '/ops' }, 'Expected `operation.operationUrl` to be a function'],
    [{ fetchResult: 'no' }, 'Expected `operation.fetchResult` to be a boolean'],
    [{ timeout: 0 }, 'Expected `operation.timeout` to be a finite number > 0'],
    [{ retries: 1.5 }, 'Expected `operation.retries` to be a non-negative integer'],
    [{ use: [1] }, 'Expected `operation.use` to be an array of features'],
    [{ maxAttempts: 3 }, 'Expected `operation.maxAttempts` to be given as `retries`'],
    [{ init: {} }, "Expected `init` to be given to pollOperation's second argument, not to `operation`"],
  ])('%o', async (operation, message) => {
    let sent = 0;
    const fetch = (async () => {
      sent += 1;
      return new Response(null, { status: 202 });
    }) as typeof globalThis.fetch;
    const error = await pollOperation(REFUSED_URL, { ...post, operation: { fetch, ...(operation as object) } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(message);
    expect(sent).toBe(0);
  });

  it('a name that is no option is refused, named with its place (operation.), and an option of operation given beside it is sent there', async () => {
    await expect(pollOperation(REFUSED_URL, { operation: { intervall: 5 } as object })).rejects.toThrow(new TypeError('Unknown option `operation.intervall`: did you mean `operation.interval`?'));
    for (const name of ['retries', 'trustedOrigins']) {
      await expect(pollOperation(REFUSED_URL, { [name]: 1 } as RequestInit)).rejects.toThrow(
        new TypeError(`Expected \`${name}\` to be given as \`operation.${name}\`: the second argument is fetch's init, with the operation options under \`operation\``),
      );
    }
  });

  it('a signal that is none is refused before the start is sent', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })] });
    await expect(pollOperation(`${server.url}/jobs`, { ...post, signal: {} as AbortSignal })).rejects.toThrow(new TypeError('Expected `signal` to be an AbortSignal'));
    expect(server.requests).toEqual([]);
  });

  it('a bad input or init, and an operationUrl that returns no URL', async () => {
    await expect(pollOperation('http://[bad')).rejects.toThrow(TypeError);
    await expect(pollOperation(REFUSED_URL, 'x' as unknown as RequestInit)).rejects.toThrow(new TypeError('Expected `init` to be an object'));
    await expect(pollOperation(REFUSED_URL, { operation: 'x' as unknown as object })).rejects.toThrow(new TypeError('Expected `operation` to be an object'));
    await expect(pollOperation(REFUSED_URL, null as unknown as RequestInit)).rejects.toThrow(new TypeError('Expected `init` to be an object'));
    await expect(pollOperation(REFUSED_URL, { operation: null as unknown as object })).rejects.toThrow(new TypeError('Expected `operation` to be an object'));
    server = await routes({ 'POST /jobs': [json(200, { name: 'x' })] });
    await expect(pollOperation(`${server.url}/jobs`, { ...post, operation: { operationUrl: () => 'http://[bad' } })).rejects.toThrow(
      new TypeError('Expected `operationUrl` to be a function returning a URL, got http://[bad'),
    );
  });
});
