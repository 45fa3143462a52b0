// pollOperation against long-running operations as Express and Fastify apps
// implement them: 202 + Location with a 303 to the result, Azure's
// Operation-Location with a status and resourceLocation, Google's operations.
import fastifyEtag from '@fastify/etag';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { createServer } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import { type PollEvent } from '../../src/index.js';
import { isOperationFailedError, pollOperation } from '../../src/operation/index.js';
import { recordedServer, recording, serveRecorded, type Arrival, type RecordedServer } from './helpers/recorded-server.js';

/** A job that runs for `ms` after it is created, then ends as `outcome`. */
interface Job {
  id: string;
  created: number;
  ms: number;
  outcome: 'succeeded' | 'failed';
  key: string | undefined;
}

const over = (job: Job): boolean => Date.now() - job.created >= job.ms;

function expressApp(jobs: Map<string, Job>): express.Express {
  const app = express();
  let posts = 0;
  app.post('/exports', express.json(), (req, res) => {
    posts += 1;
    // The first attempt meets a flaky proxy; the retry, carrying the same key, creates the job once.
    if (posts === 1) return void res.status(503).set('retry-after', '0').end();
    const key = req.get('idempotency-key');
    const existing = [...jobs.values()].find((job) => key && job.key === key);
    const job = existing ?? { id: String(jobs.size + 1), created: Date.now(), ms: (req.body as { ms: number }).ms, outcome: 'succeeded' as const, key };
    jobs.set(job.id, job);
    res.status(202).location(`/exports/${job.id}/status`).set('retry-after', '1').json({ id: job.id });
  });
  app.get('/exports/:id/status', (req, res) => {
    const job = jobs.get(req.params.id)!;
    if (over(job)) return res.redirect(303, `/exports/${job.id}/file`);
    // 202 while running: what tells a Location monitor's answer from the result (a 200 here would be the end).
    res.status(202).json({ id: job.id, state: 'running' });
  });
  app.get('/exports/:id/file', (req, res) => void res.json({ id: req.params.id, rows: 3 }));
  return app;
}

async function fastifyApp(jobs: Map<string, Job>): Promise<RecordedServer> {
  const arrivals: Arrival[] = [];
  const app: FastifyInstance = Fastify({ forceCloseConnections: true, serverFactory: (handler) => createServer(recording(handler, arrivals)) });
  await app.register(fastifyEtag);
  app.post<{ Body: { ms: number; outcome?: 'failed' } }>('/v1/jobs', async (request, reply) => {
    const job: Job = { id: String(jobs.size + 1), created: Date.now(), ms: request.body.ms, outcome: request.body.outcome ?? 'succeeded', key: undefined };
    jobs.set(job.id, job);
    return reply.code(202).header('operation-location', `/v1/operations/${job.id}?api-version=2024-01-01`).send({ status: 'NotStarted' });
  });
  app.get<{ Params: { id: string } }>('/v1/operations/:id', async (request) => {
    const job = jobs.get(request.params.id)!;
    if (!over(job)) return { id: job.id, status: 'Running' };
    return job.outcome === 'failed'
      ? { id: job.id, status: 'Failed', error: { code: 'DiskFull', message: 'the disk is full' } }
      : { id: job.id, status: 'Succeeded', resourceLocation: `/v1/jobs/${job.id}/result` };
  });
  app.get<{ Params: { id: string } }>('/v1/jobs/:id/result', async (request) => ({ id: request.params.id, answer: 42 }));
  // Google's shape: the operation is named in the body of a 200.
  app.post<{ Body: { ms: number } }>('/v1/things', async (request) => {
    const job: Job = { id: `g${jobs.size + 1}`, created: Date.now(), ms: request.body.ms, outcome: 'succeeded', key: undefined };
    jobs.set(job.id, job);
    return { name: `operations/${job.id}`, done: false };
  });
  app.get<{ Params: { id: string } }>('/v1/google/operations/:id', async (request) => {
    const job = jobs.get(request.params.id)!;
    return over(job) ? { name: `operations/${job.id}`, done: true, response: { thing: job.id } } : { name: `operations/${job.id}`, done: false, metadata: { progress: 0.5 } };
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return recordedServer(app.server, arrivals, url, () => app.close());
}

const jobs = new Map<string, Job>();
let onExpress: RecordedServer;
let onFastify: RecordedServer;
beforeAll(async () => {
  onExpress = await serveRecorded(expressApp(jobs));
  onFastify = await fastifyApp(jobs);
});
afterAll(async () => {
  await onExpress.close();
  await onFastify.close();
});
afterEach(() => clearCooldowns());

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('Express 5: 202 + Location, Retry-After, a 303 to the result', () => {
  it('retries the keyed POST once, waits the Retry-After, gets 304s while unchanged, follows the 303 to the file', async () => {
    const statuses: number[] = [];
    const result = await pollOperation(`${onExpress.url}/exports`, {
      ...json({ ms: 1500 }),
      operation: { idempotencyKey: true, interval: 100, onEvent: (e: PollEvent) => e.type === 'response' && statuses.push(e.status) },
    });
    expect(result).toEqual({ id: '1', rows: 3 });
    const posts = onExpress.at('/exports');
    expect(posts.map((a) => a.status)).toEqual([503, 202]);
    expect(posts[1]!.request['idempotency-key']).toBe(posts[0]!.request['idempotency-key']);
    expect(jobs.get('1')!.key).toBe(posts[0]!.request['idempotency-key']);
    const polls = onExpress.at('/exports/1/status');
    // The first poll waited for the 202's Retry-After (1 s), counted from when the start was answered.
    expect(polls[0]!.at).toBeGreaterThanOrEqual(posts[1]!.at + 1000);
    expect(polls.at(-1)!.status).toBe(303);
    expect(polls.slice(1, -1).every((a) => a.status === 304)).toBe(true);
    expect(polls.length).toBeGreaterThanOrEqual(3);
    expect(onExpress.at('/exports/1/file').map((a) => a.status)).toEqual([200]);
    expect(statuses.at(-1)).toBe(200);
  });
});

describe('Fastify 5: Azure-style Operation-Location, status and resourceLocation; Google-style operations', () => {
  it('polls the operation (304s from @fastify/etag while Running) until Succeeded, then fetches resourceLocation', async () => {
    const updates: unknown[] = [];
    const result = await pollOperation(`${onFastify.url}/v1/jobs`, { ...json({ ms: 600 }), operation: { interval: 100, onUpdate: (s) => updates.push(s) } });
    const id = [...jobs.values()].find((job) => job.id !== '1' && !job.id.startsWith('g'))!.id;
    expect(result).toEqual({ id, answer: 42 });
    const polls = onFastify.at(`/v1/operations/${id}`);
    expect(polls[0]!.path).toBe(`/v1/operations/${id}?api-version=2024-01-01`);
    expect(polls.map((a) => a.status)).toEqual([200, ...polls.slice(1, -1).map(() => 304), 200]);
    expect(polls.length).toBeGreaterThanOrEqual(4);
    expect(updates).toEqual([{ id, status: 'Running' }, { id, status: 'Succeeded', resourceLocation: `/v1/jobs/${id}/result` }]);
    expect(onFastify.at(`/v1/jobs/${id}/result`)).toHaveLength(1);
  });

  it('a Failed operation rejects with an OperationFailedError, and nothing more is fetched', async () => {
    const error = await pollOperation(`${onFastify.url}/v1/jobs`, { ...json({ ms: 200, outcome: 'failed' }), operation: { interval: 100 } }).catch((e: unknown) => e);
    expect(isOperationFailedError(error)).toBe(true);
    expect(error).toMatchObject({ status: 'failed', operation: { status: 'Failed', error: { code: 'DiskFull' } } });
    expect((error as Error).message).toMatch(/failed: DiskFull: the disk is full$/);
  });

  it("Google's operation, found by operationUrl: done: true resolves with its response", async () => {
    const result = await pollOperation(`${onFastify.url}/v1/things`, {
      ...json({ ms: 300 }),
      operation: { interval: 100, operationUrl: ({ body }) => `/v1/google/${(body as { name: string }).name}` },
    });
    expect(result).toMatchObject({ thing: expect.stringMatching(/^g\d+$/) });
  });
});
