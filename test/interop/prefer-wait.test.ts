// pollOperation's preferWait (RFC 7240 `Prefer: respond-async, wait=N`) against a Fastify 5 app
// that holds its requests as the preference asks, with @fastify/etag turning a hold that ended
// unchanged into a 304: a real framework's long poll, not a scripted server.
import fastifyEtag from '@fastify/etag';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import type { PollEvent } from '../../src/index.js';
import { pollOperation } from '../../src/operation/index.js';
import { recordedServer, recording, type Arrival, type RecordedServer } from './helpers/recorded-server.js';

interface Report {
  version: number;
  status: 'Running' | 'Succeeded';
  progress: number;
}

/** The seconds a request asks the server to hold it (`Prefer: wait=N`), if any. */
const waitOf = (request: FastifyRequest): number | undefined => {
  const match = /(?:^|,)\s*wait=(\d+)/i.exec(String(request.headers.prefer ?? ''));
  return match ? Number(match[1]) : undefined;
};

let report: Report = { version: 0, status: 'Running', progress: 0 };
const waiters = new Set<() => void>();
const update = (next: Omit<Report, 'version'>): void => {
  report = { version: report.version + 1, ...next };
  for (const wake of [...waiters]) wake();
};
/** Resolves when the report is no longer at `version`, or after `seconds`. */
const changeFrom = (version: number, seconds: number): Promise<void> =>
  new Promise((resolve) => {
    if (report.version !== version) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      waiters.delete(done);
      resolve();
    };
    const timer = setTimeout(done, seconds * 1000);
    waiters.add(done);
  });
const etagOf = (version: number): string => `"v${version}"`;

async function fastifyApp(): Promise<RecordedServer> {
  const arrivals: Arrival[] = [];
  const app: FastifyInstance = Fastify({ forceCloseConnections: true, serverFactory: (handler) => createServer(recording(handler, arrivals)) });
  await app.register(fastifyEtag);
  const timers: NodeJS.Timeout[] = [];
  let polls = 0;
  app.post('/v1/reports', async (request, reply) => {
    report = { version: 1, status: 'Running', progress: 50 };
    const wait = waitOf(request);
    // respond-async, wait=N: the result if it is ready within N s, else a 202 that says the wait was applied.
    if (wait !== undefined) await changeFrom(report.version, wait);
    if (wait !== undefined) void reply.header('preference-applied', `respond-async, wait=${wait}`);
    return reply.code(202).header('operation-location', '/v1/operations/1').send({ status: report.status });
  });
  app.get('/v1/operations/1', async (request, reply) => {
    // The report is done 300 ms after the third status request comes in: the second is held its whole wait, unchanged.
    polls += 1;
    if (polls === 3) timers.push(setTimeout(() => update({ status: 'Succeeded', progress: 100 }), 300));
    const wait = waitOf(request);
    // Held while the client has the current version (its If-None-Match), N s at most.
    if (wait !== undefined && request.headers['if-none-match'] === etagOf(report.version)) await changeFrom(report.version, wait);
    if (wait !== undefined) void reply.header('preference-applied', `wait=${wait}`);
    // The version's own ETag, which @fastify/etag keeps; it answers a request that names it with a 304.
    void reply.header('etag', etagOf(report.version));
    return { status: report.status, progress: report.progress, ...(report.status === 'Succeeded' && { resourceLocation: '/v1/reports/1' }) };
  });
  app.get('/v1/reports/1', async () => ({ month: '2025-01', rows: 42 }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return recordedServer(app.server, arrivals, url, async () => {
    for (const timer of timers) clearTimeout(timer);
    await app.close();
  });
}

let onFastify: RecordedServer;
beforeAll(async () => {
  onFastify = await fastifyApp();
});
afterAll(async () => {
  clearCooldowns();
  await onFastify.close();
});

describe('Fastify 5 holding its requests (Prefer: wait), @fastify/etag answering an unchanged hold with a 304', () => {
  it('the start held, then a poll answered at once, one held to its end (a 304), one held until the report is done', async () => {
    const events: PollEvent[] = [];
    const started = Date.now();
    const result = await pollOperation(`${onFastify.url}/v1/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"month":"2025-01"}',
      operation: { interval: 400, preferWait: 1000, requestTimeout: 800, timeout: 20_000, onEvent: (e) => events.push(e) },
    });
    expect(result).toEqual({ month: '2025-01', rows: 42 });
    const [start] = onFastify.at('/v1/reports');
    expect(start!.request.prefer).toBe('respond-async, wait=1');
    expect([start!.status, start!.headers['preference-applied']]).toEqual([202, 'respond-async, wait=1']);
    const polls = onFastify.at('/v1/operations/1');
    // What each poll carried and got: @fastify/etag made the unchanged hold a 304, and kept the server's Preference-Applied on it.
    expect(polls.map((poll) => [poll.request.prefer, poll.request['if-none-match'], poll.status, poll.headers['preference-applied']])).toEqual([
      ['wait=1', undefined, 200, 'wait=1'],
      ['wait=1', '"v1"', 304, 'wait=1'],
      ['wait=1', '"v1"', 200, 'wait=1'],
    ]);
    // The first poll at once (the start was held past the interval), the third at once after the second's full hold.
    const waits = events.filter((e) => e.type === 'wait').map((e) => (e as { delay: number }).delay);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThanOrEqual(400);
    expect(waits[1]).toBe(0);
    expect(events.filter((e) => e.type === 'request').map((e) => e.held)).toEqual([undefined, 1000, 1000]);
    // Held 1 s with an 800 ms requestTimeout: extended by the wait, nothing timed out.
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(onFastify.at('/v1/reports/1').map((a) => a.status)).toEqual([200]);
  });
});
