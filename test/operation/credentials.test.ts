import { afterEach, describe, expect, it } from 'vitest';
import { pollOperation } from '../../src/operation/index.js';
import { REFUSED_URL, type SeenRequest, type TestServer } from '../helpers/server.js';
import { instantEnv } from './helpers/instant-env.js';
import { recordingFetch } from './helpers/recording-fetch.js';
import { empty, json, lines, routes, type Answer } from './helpers/routes.js';

// Several loopback servers on different ports are different origins: the start's, and others a server may name.
let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
const serve = async (table: Record<string, Answer[]>): Promise<TestServer> => {
  const server = await routes(table);
  servers.push(server);
  return server;
};

/** A start that carries every kind of credential a caller sends: standard, custom, and cookies. */
const CREDENTIALS = {
  authorization: 'Bearer secret',
  cookie: 'sid=secret',
  'proxy-authorization': 'Basic c2VjcmV0',
  'api-key': 'secret',
  'ocp-apim-subscription-key': 'secret',
  'x-api-key': 'secret',
};
const SAFE = { accept: 'application/json', 'accept-language': 'fr', 'user-agent': 'pollite-test' };
const start = {
  method: 'POST',
  body: '{}',
  headers: { 'content-type': 'application/json', ...CREDENTIALS, ...SAFE },
  credentials: 'include',
  mode: 'cors',
  referrerPolicy: 'no-referrer',
} as const;

/** The headers of a request that name a credential of the start's. */
const credentialsIn = (seen: SeenRequest): Record<string, unknown> =>
  Object.fromEntries(Object.keys(CREDENTIALS).flatMap((name) => (seen.headers[name] === undefined ? [] : [[name, seen.headers[name]]])));

describe("a monitor or a result on another origin gets none of the start's credentials", () => {
  it('Operation-Location on another origin, resourceLocation on a third: no Authorization, Cookie, Proxy-Authorization nor custom header; the safe ones kept', async () => {
    const results = await serve({ 'GET /results/1': [json(200, { answer: 42 })] });
    const ops = await serve({ 'GET /ops/1': [json(200, { status: 'Running' }), json(200, { status: 'Succeeded', resourceLocation: `${results.url}/results/1` })] });
    const api = await serve({ 'POST /jobs': [empty(202, { 'operation-location': `${ops.url}/ops/1` })] });
    const { fetch, calls } = recordingFetch();
    const { env } = instantEnv();
    expect(await pollOperation(`${api.url}/jobs`, { ...start, operation: { env, fetch } })).toEqual({ answer: 42 });
    expect(credentialsIn(api.requests[0]!)).toEqual(CREDENTIALS);
    expect(lines(ops)).toEqual(['GET /ops/1', 'GET /ops/1']);
    for (const seen of [...ops.requests, ...results.requests]) {
      expect(credentialsIn(seen)).toEqual({});
      expect(seen.headers).toMatchObject(SAFE);
    }
    expect(lines(results)).toEqual(['GET /results/1']);
    // credentials: 'include' becomes 'same-origin' there (a browser sends those origins no cookies); mode and referrer policy stay.
    expect(calls.map((c) => [c.url, c.init.credentials, c.init.mode, c.init.referrerPolicy])).toEqual([
      [`${api.url}/jobs`, 'include', 'cors', 'no-referrer'],
      [`${ops.url}/ops/1`, 'same-origin', 'cors', 'no-referrer'],
      [`${ops.url}/ops/1`, 'same-origin', 'cors', 'no-referrer'],
      [`${results.url}/results/1`, 'same-origin', 'cors', 'no-referrer'],
    ]);
  });

  it("a 202's Location on another origin, and its Location to the result there: the same", async () => {
    const ops = await serve({ 'GET /m': [empty(202), empty(200, { location: '/file' })], 'GET /file': [json(200, { rows: 1 })] });
    const api = await serve({ 'POST /jobs': [empty(202, { location: `${ops.url}/m` })] });
    const { env } = instantEnv();
    expect(await pollOperation(`${api.url}/jobs`, { ...start, operation: { env } })).toEqual({ rows: 1 });
    expect(lines(ops)).toEqual(['GET /m', 'GET /m', 'GET /file']);
    for (const seen of ops.requests) expect(credentialsIn(seen)).toEqual({});
  });

  it("the start's own Location beside an Azure-AsyncOperation, on another origin: the result gets none, the same-origin monitor all", async () => {
    const results = await serve({ 'GET /things/4': [json(200, { id: 4 })] });
    const api = await serve({ 'POST /things': [empty(202, { 'azure-asyncoperation': '/ops/4', location: `${results.url}/things/4` })], 'GET /ops/4': [json(200, { status: 'Succeeded' })] });
    const { env } = instantEnv();
    expect(await pollOperation(`${api.url}/things`, { ...start, operation: { env } })).toEqual({ id: 4 });
    expect(credentialsIn(api.requests[1]!)).toEqual(CREDENTIALS);
    expect(credentialsIn(results.requests[0]!)).toEqual({});
  });

  it('operation.headers follow the rule too: written for the polls, they still go only to origins the caller named', async () => {
    const ops = await serve({ 'GET /ops/1': [json(200, { status: 'Succeeded' })] });
    const api = await serve({ 'POST /jobs': [empty(202, { 'operation-location': `${ops.url}/ops/1` })] });
    const { env } = instantEnv();
    await pollOperation(`${api.url}/jobs`, { ...start, operation: { env, headers: { 'x-api-key': 'for-polls', accept: 'application/json' } } });
    expect(credentialsIn(ops.requests[0]!)).toEqual({});
    expect(ops.requests[0]!.headers.accept).toBe('application/json');
  });

  it('an origin in trustedOrigins gets everything; an origin it does not name still gets nothing', async () => {
    const results = await serve({ 'GET /r': [json(200, { ok: true })] });
    const ops = await serve({ 'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: `${results.url}/r` })] });
    const api = await serve({ 'POST /jobs': [empty(202, { 'operation-location': `${ops.url}/ops/1` })] });
    const { fetch, calls } = recordingFetch();
    const { env } = instantEnv();
    await pollOperation(`${api.url}/jobs`, { ...start, operation: { env, fetch, trustedOrigins: [ops.url], headers: { ...CREDENTIALS, 'x-poll': '1' } } });
    expect(credentialsIn(ops.requests[0]!)).toEqual(CREDENTIALS);
    expect(ops.requests[0]!.headers['x-poll']).toBe('1');
    expect(credentialsIn(results.requests[0]!)).toEqual({});
    expect(results.requests[0]!.headers['x-poll']).toBeUndefined();
    expect(calls.map((c) => c.init.credentials)).toEqual(['include', 'include', 'same-origin']);
  });
});

describe('a monitor and a result on the start URL\'s origin keep everything the start carried', () => {
  it("every header but the body's and the Idempotency-Key, and credentials: 'include', mode, referrer policy, cache", async () => {
    const api = await serve({
      'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Running' }), json(200, { status: 'Succeeded', resourceLocation: '/results/1' })],
      'GET /results/1': [json(200, { answer: 42 })],
    });
    const { fetch, calls } = recordingFetch();
    const { env } = instantEnv();
    await pollOperation(`${api.url}/jobs`, { ...start, cache: 'no-store', operation: { env, fetch, idempotencyKey: 'k' } });
    for (const seen of api.requests.slice(1)) {
      expect(credentialsIn(seen)).toEqual(CREDENTIALS);
      expect(seen.headers).toMatchObject(SAFE);
      expect(seen.headers['content-type']).toBeUndefined();
      expect(seen.headers['idempotency-key']).toBeUndefined();
    }
    for (const { init } of calls.slice(1)) expect(init).toMatchObject({ credentials: 'include', mode: 'cors', referrerPolicy: 'no-referrer', cache: 'no-store' });
    expect(calls).toHaveLength(4);
  });

  it("a start that was redirected to another origin: the origin the caller named is the start URL's, not where it landed", async () => {
    const landed = await serve({ 'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })], 'GET /ops/1': [json(200, { status: 'Succeeded' })] });
    const api = await serve({ 'POST /jobs': [empty(307, { location: `${landed.url}/jobs` })] });
    const { env } = instantEnv();
    await pollOperation(`${api.url}/jobs`, { ...start, operation: { env } });
    expect(lines(landed)).toEqual(['POST /jobs', 'GET /ops/1']);
    expect(credentialsIn(landed.requests[1]!)).toEqual({});
  });
});

describe('trustedOrigins is validated before anything is sent', () => {
  it.each([['https://ops.example.com/'], 'https://ops.example.com', [42], ['ops.example.com'], ['https://ops.example.com/v1'], ['https://ok.example.com', 'ops.example.com']])('%o', async (trustedOrigins) => {
    await expect(pollOperation(REFUSED_URL, { operation: { trustedOrigins: trustedOrigins as string[] } })).rejects.toThrow(
      new TypeError("Expected `operation.trustedOrigins` to be an array of origins such as 'https://ops.example.com' (scheme, host and port only)"),
    );
  });
});
