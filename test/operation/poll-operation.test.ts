import { afterEach, describe, expect, it } from 'vitest';
import { PolliteError, type PollEvent } from '../../src/index.js';
import { isOperationFailedError, OperationFailedError, pollOperation } from '../../src/operation/index.js';
import type { TestServer } from '../helpers/server.js';
import { instantEnv } from './helpers/instant-env.js';
import { empty, json, lines, routes, type Answer } from './helpers/routes.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"size":3}' } as const;

describe('Azure: Operation-Location or Azure-AsyncOperation, a status, a resourceLocation', () => {
  it('polls the monitor (resolved against the start URL) until Succeeded, then fetches resourceLocation, each wait the Retry-After asked', async () => {
    server = await routes({
      'POST /v1/jobs': [json(202, { status: 'NotStarted' }, { 'operation-location': 'ops/1?api-version=2', 'retry-after': '3' })],
      'GET /v1/ops/1?api-version=2': [
        json(200, { status: 'Running' }, { 'retry-after': '5' }),
        json(200, { status: 'running' }),
        json(200, { status: 'succeeded', resourceLocation: '/results/1' }),
      ],
      'GET /results/1': [json(200, { answer: 42 })],
    });
    const { env, delays } = instantEnv();
    const updates: unknown[] = [];
    const events: PollEvent[] = [];
    const result = await pollOperation(`${server.url}/v1/jobs`, {
      ...post,
      operation: { env, interval: 1000, onUpdate: (status) => updates.push(status), onEvent: (event) => events.push(event) },
    });
    expect(result).toEqual({ answer: 42 });
    expect(lines(server)).toEqual(['POST /v1/jobs', 'GET /v1/ops/1?api-version=2', 'GET /v1/ops/1?api-version=2', 'GET /v1/ops/1?api-version=2', 'GET /results/1']);
    // The start's Retry-After (3 s) before the first poll, the monitor's (5 s) over the 1 s interval, each spread as
    // every Retry-After is (random 0.5: +10 %, so a fleet told the same does not come back at once), then the interval.
    expect(delays).toEqual([3300, 5500, 1000]);
    expect(events.filter((e) => e.type === 'wait').map((e) => (e as { delay: number }).delay)).toEqual([3300, 5500, 1000]);
    expect(updates).toEqual([{ status: 'Running' }, { status: 'running' }, { status: 'succeeded', resourceLocation: '/results/1' }]);
  });

  it('a Failed status rejects with an OperationFailedError carrying the final body and its error message', async () => {
    server = await routes({
      'POST /jobs': [empty(202, { 'azure-asyncoperation': '/ops/2' })],
      'GET /ops/2': [json(200, { status: 'InProgress' }), json(200, { status: 'Failed', error: { code: 'Quota', message: 'out of quota' } })],
    });
    const { env } = instantEnv();
    const error = await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 10 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationFailedError);
    expect(error).toBeInstanceOf(PolliteError);
    expect(isOperationFailedError(error)).toBe(true);
    const failed = error as OperationFailedError;
    expect(failed).toMatchObject({ name: 'OperationFailedError', status: 'failed', url: `${server.url}/ops/2`, operation: { status: 'Failed', error: { code: 'Quota' } } });
    expect(failed.message).toBe(`The operation at ${server.url}/ops/2 failed: Quota: out of quota`);
    expect(lines(server)).toEqual(['POST /jobs', 'GET /ops/2', 'GET /ops/2']);
  });

  it('Canceled (any case, either spelling) rejects with status canceled', async () => {
    for (const word of ['Canceled', 'CANCELLED']) {
      server = await routes({ 'POST /jobs': [empty(202, { 'operation-location': '/ops/3' })], 'GET /ops/3': [json(200, { status: word })] });
      const { env } = instantEnv();
      const error = await pollOperation(`${server.url}/jobs`, { ...post, operation: { env } }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'OperationFailedError', status: 'canceled' });
      expect((error as Error).message).toBe(`The operation at ${server.url}/ops/3 was canceled`);
      await server.close();
    }
    server = undefined;
  });

  it("the start's Location beside Azure-AsyncOperation holds the result (POST); a PUT's result is its own URL", async () => {
    server = await routes({
      'POST /things': [empty(202, { 'azure-asyncoperation': '/ops/4', location: '/things/4' })],
      'PUT /things/5': [json(201, { status: 'Creating' }, { 'azure-asyncoperation': '/ops/5' })],
      'GET /ops/4': [json(200, { status: 'Succeeded' })],
      'GET /ops/5': [json(200, { status: 'Succeeded' })],
      'GET /things/4': [json(200, { id: 4 })],
      'GET /things/5': [json(200, { id: 5 })],
    });
    const { env } = instantEnv();
    expect(await pollOperation(`${server.url}/things`, { ...post, operation: { env } })).toEqual({ id: 4 });
    expect(await pollOperation(`${server.url}/things/5`, { ...post, method: 'PUT', operation: { env } })).toEqual({ id: 5 });
    expect(lines(server)).toEqual(['POST /things', 'GET /ops/4', 'GET /things/4', 'PUT /things/5', 'GET /ops/5', 'GET /things/5']);
  });

  it('fetchResult: false resolves with the final status body and fetches nothing', async () => {
    server = await routes({
      'POST /jobs': [empty(202, { 'operation-location': '/ops/6' })],
      'GET /ops/6': [json(200, { status: 'Succeeded', resourceLocation: '/results/6' })],
    });
    const { env } = instantEnv();
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, fetchResult: false } })).toEqual({ status: 'Succeeded', resourceLocation: '/results/6' });
    expect(lines(server)).toEqual(['POST /jobs', 'GET /ops/6']);
  });
});

describe('Location: a 202 monitor, answered 202 while running', () => {
  it('a monitor that answers 303 See Other: fetch follows it, and the answer it leads to is the result', async () => {
    server = await routes({
      'POST /exports': [empty(202, { location: '/exports/9/status', 'retry-after': '1' })],
      'GET /exports/9/status': [empty(202, { 'retry-after': '2' }), empty(202), empty(303, { location: '/exports/9/file' })],
      'GET /exports/9/file': [json(200, { rows: 3, status: 'archived' })],
    });
    const { env, delays } = instantEnv();
    expect(await pollOperation(`${server.url}/exports`, { ...post, operation: { env, interval: 500 } })).toEqual({ rows: 3, status: 'archived' });
    expect(lines(server)).toEqual(['POST /exports', 'GET /exports/9/status', 'GET /exports/9/status', 'GET /exports/9/status', 'GET /exports/9/file']);
    // The start's Retry-After (1 s) and the monitor's 202 Retry-After (2 s), each spread by 10 % (random 0.5).
    expect(delays).toEqual([1100, 2200, 500]);
  });

  it('a monitor that answers 200 with the result itself; and one that answers 200 with a Location to it', async () => {
    server = await routes({
      'POST /a': [empty(202, { location: '/a/m' })],
      'GET /a/m': [empty(202), json(200, { id: 'a' })],
      'POST /b': [empty(202, { location: '/b/m' })],
      'GET /b/m': [json(202, { progress: 0.5 }), empty(200, { location: '/b/result' })],
      'GET /b/result': [json(200, { id: 'b' })],
    });
    const { env } = instantEnv();
    expect(await pollOperation(`${server.url}/a`, { ...post, operation: { env } })).toEqual({ id: 'a' });
    expect(await pollOperation(`${server.url}/b`, { ...post, operation: { env } })).toEqual({ id: 'b' });
    expect(lines(server)).toEqual(['POST /a', 'GET /a/m', 'GET /a/m', 'POST /b', 'GET /b/m', 'GET /b/m', 'GET /b/result']);
  });

  it('a monitor whose 202 is plain text ("Still working") is still running; a 200 that is not JSON is a ParseError', async () => {
    const text = (status: number, body: string): Answer => (res) => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    };
    server = await routes({
      'POST /a': [empty(202, { location: '/a/m' })],
      'GET /a/m': [text(202, 'Still working'), text(202, 'Still working'), json(200, { id: 'a' })],
      'POST /b': [empty(202, { location: '/b/m' })],
      'GET /b/m': [text(200, 'Done, sort of')],
    });
    const { env } = instantEnv();
    expect(await pollOperation(`${server.url}/a`, { ...post, operation: { env } })).toEqual({ id: 'a' });
    await expect(pollOperation(`${server.url}/b`, { ...post, operation: { env } })).rejects.toMatchObject({ name: 'ParseError', status: 200 });
    expect(lines(server)).toEqual(['POST /a', 'GET /a/m', 'GET /a/m', 'GET /a/m', 'POST /b', 'GET /b/m']);
  });

  it('a 202 whose body is plain text ("Accepted") is still followed', async () => {
    server = await startText();
    const { env } = instantEnv();
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env } })).toEqual({ done: 'yes' });
  });

  it('conditional polls: an unchanged status costs a 304, and the polls carry no body headers and no Idempotency-Key', async () => {
    const running = json(200, { status: 'Running' }, { etag: '"r1"' });
    const notModified = empty(304, { etag: '"r1"' });
    server = await routes({
      'POST /jobs': [empty(202, { location: '/jobs/1' })],
      'GET /jobs/1': [running, notModified, notModified, notModified, json(200, { status: 'Succeeded', output: 7 }, { etag: '"s"' })],
    });
    const { env } = instantEnv();
    const statuses: number[] = [];
    const result = await pollOperation(`${server.url}/jobs`, {
      ...post,
      headers: { ...post.headers, authorization: 'Bearer t' },
      operation: { env, idempotencyKey: 'k-1', onEvent: (e) => e.type === 'response' && statuses.push(e.status) },
    });
    expect(result).toEqual({ status: 'Succeeded', output: 7 });
    expect(statuses).toEqual([200, 304, 304, 304, 200]);
    const polls = server.requests.slice(1);
    expect(polls.map((r) => r.headers['if-none-match'])).toEqual([undefined, '"r1"', '"r1"', '"r1"', '"r1"']);
    expect(server.requests[0]!.headers['idempotency-key']).toBe('k-1');
    for (const r of polls) {
      expect(r.headers.authorization).toBe('Bearer t');
      expect(r.headers['idempotency-key']).toBeUndefined();
      expect(r.headers['content-type']).toBeUndefined();
    }
  });
});

describe("Google: the operation in the body, found by operationUrl; done with error or response", () => {
  it("resolves with the done operation's response", async () => {
    server = await routes({
      'POST /v1/projects/p/instances': [json(200, { name: 'operations/op-7', done: false })],
      'GET /v1/operations/op-7': [json(200, { name: 'operations/op-7', done: false, metadata: { progress: 40 } }), json(200, { name: 'operations/op-7', done: true, response: { instance: 'i-1' } })],
    });
    const { env } = instantEnv();
    const result = await pollOperation(`${server.url}/v1/projects/p/instances`, {
      ...post,
      operation: { env, operationUrl: ({ body }) => `/v1/${(body as { name: string }).name}` },
    });
    expect(result).toEqual({ instance: 'i-1' });
    expect(lines(server)).toEqual(['POST /v1/projects/p/instances', 'GET /v1/operations/op-7', 'GET /v1/operations/op-7']);
  });

  it('done with an error rejects with an OperationFailedError', async () => {
    server = await routes({
      'POST /v1/x': [json(200, { name: 'operations/e', done: false })],
      'GET /v1/operations/e': [json(200, { name: 'operations/e', done: true, error: { code: 5, message: 'NOT_FOUND' } })],
    });
    const { env } = instantEnv();
    const error = await pollOperation(`${server.url}/v1/x`, { ...post, operation: { env, operationUrl: ({ body }) => `/v1/${(body as { name: string }).name}` } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OperationFailedError', status: 'failed', operation: { error: { code: 5 } } });
    expect((error as Error).message).toMatch(/failed: code 5: NOT_FOUND$/);
  });
});

describe('AWS-style waiters: isDone and isFailed override the conventions', () => {
  it('polls until isDone, and isFailed decides how it ended', async () => {
    server = await routes({
      'POST /stacks': [empty(202, { location: '/stacks/s' })],
      'GET /stacks/s': [json(200, { StackStatus: 'CREATE_IN_PROGRESS', status: 'Succeeded' }), json(200, { StackStatus: 'CREATE_FAILED' })],
    });
    const { env } = instantEnv();
    type Stack = { StackStatus: string };
    const error = await pollOperation<unknown, Stack>(`${server.url}/stacks`, {
      ...post,
      operation: { env, isDone: (s) => !s.StackStatus.endsWith('_IN_PROGRESS'), isFailed: (s) => s.StackStatus.endsWith('_FAILED') },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OperationFailedError', status: 'failed', operation: { StackStatus: 'CREATE_FAILED' } });
    expect(lines(server)).toEqual(['POST /stacks', 'GET /stacks/s', 'GET /stacks/s']);
  });
});

/** A server whose start answers 202 with a text body. */
async function startText(): Promise<TestServer> {
  return routes({
    'POST /jobs': [
      (res) => {
        res.writeHead(202, { 'content-type': 'text/plain', location: '/jobs/1' });
        res.end('Accepted');
      },
    ],
    'GET /jobs/1': [json(200, { status: 'Succeeded', resourceLocation: '/out' })],
    'GET /out': [json(200, { done: 'yes' })],
  });
}
