import { afterEach, describe, expect, it } from 'vitest';
import { pollOperation } from '../../src/operation/index.js';
import type { TestServer } from '../helpers/server.js';
import { instantEnv } from './helpers/instant-env.js';
import { empty, json, lines, routes, type Answer } from './helpers/routes.js';

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

const post = { method: 'POST', body: '{}' } as const;
const running = json(200, { status: 'Running' });

describe('a redirect on the way to the monitor only moved it: its body still decides', () => {
  it.each([301, 308])('a %i adding a trailing slash: polled until Succeeded, then the result fetched', async (status) => {
    const api = await serve({
      'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [empty(status, { location: '/ops/1/' })],
      'GET /ops/1/': [running, running, json(200, { status: 'Succeeded', resourceLocation: '/results/1' })],
      'GET /results/1': [json(200, { answer: 42 })],
    });
    const { env } = instantEnv();
    const updates: unknown[] = [];
    expect(await pollOperation(`${api.url}/jobs`, { ...post, operation: { env, onUpdate: (s) => updates.push(s) } })).toEqual({ answer: 42 });
    expect(updates).toEqual([{ status: 'Running' }, { status: 'Running' }, { status: 'Succeeded', resourceLocation: '/results/1' }]);
    expect(lines(api)).toEqual(['POST /jobs', 'GET /ops/1', 'GET /ops/1/', 'GET /ops/1', 'GET /ops/1/', 'GET /ops/1', 'GET /ops/1/', 'GET /results/1']);
  });

  it('a 307 to the same path on another origin (a region), with a query added: polled there until Failed', async () => {
    const region = await serve({ 'GET /ops/1?region=eu': [running, json(200, { status: 'Failed', error: { message: 'quota' } })] });
    const api = await serve({ 'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })], 'GET /ops/1': [empty(307, { location: `${region.url}/ops/1?region=eu` })] });
    const { env } = instantEnv();
    const error = await pollOperation(`${api.url}/jobs`, { ...post, operation: { env } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OperationFailedError', status: 'failed', operation: { status: 'Failed' } });
    expect(lines(region)).toEqual(['GET /ops/1?region=eu', 'GET /ops/1?region=eu']);
  });

  it("a redirect to a moved monitor that still answers 202 is still running, even on another path", async () => {
    const api = await serve({
      'POST /jobs': [empty(202, { location: '/v1/ops/1' })],
      'GET /v1/ops/1': [empty(308, { location: '/v2/ops/1' })],
      'GET /v2/ops/1': [empty(202), empty(202), empty(303, { location: '/files/1' })],
      'GET /files/1': [json(200, { rows: 2 })],
    });
    const { env } = instantEnv();
    expect(await pollOperation(`${api.url}/jobs`, { ...post, operation: { env } })).toEqual({ rows: 2 });
    expect(lines(api).filter((l) => l.startsWith('GET /v2'))).toHaveLength(3);
  });
});

describe('a redirect to another path (a 303 See Other) leads to the result', () => {
  it('the answer there is the result, whatever state it gives itself (a created machine is Running), and nothing more is fetched', async () => {
    const api = await serve({
      'PUT /vms/1': [empty(202, { location: '/ops/1' })],
      'GET /ops/1': [empty(202), empty(303, { location: '/vms/1' })],
      'GET /vms/1': [json(200, { id: 1, status: 'Running', resourceLocation: '/elsewhere' })],
    });
    const { env } = instantEnv();
    expect(await pollOperation(`${api.url}/vms/1`, { method: 'PUT', body: '{}', operation: { env } })).toEqual({ id: 1, status: 'Running', resourceLocation: '/elsewhere' });
    expect(lines(api)).toEqual(['PUT /vms/1', 'GET /ops/1', 'GET /ops/1', 'GET /vms/1']);
  });

  it('a result that says by the conventions that it failed: the operation failed', async () => {
    const api = await serve({
      'POST /vms': [empty(202, { location: '/ops/2' })],
      'GET /ops/2': [empty(303, { location: '/vms/2' })],
      'GET /vms/2': [json(200, { id: 2, properties: { provisioningState: 'Failed' } })],
    });
    const { env } = instantEnv();
    await expect(pollOperation(`${api.url}/vms`, { ...post, operation: { env } })).rejects.toMatchObject({ name: 'OperationFailedError', status: 'failed', url: `${api.url}/ops/2` });
  });
});
