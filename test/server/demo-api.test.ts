import { afterEach, describe, expect, it } from 'vitest';
import { createDemoApi } from '../../src/demo/job-api.js';
import { startDemoServer, type DemoServer } from '../../src/demo/node-server.js';

const APP = 'http://127.0.0.1:5173';

/** A demo API on a manual clock. */
const manualApi = (options: Parameters<typeof createDemoApi>[0] = {}) => {
  let time = 1_000_000;
  const api = createDemoApi({ now: () => time, delay: async () => undefined, ...options });
  return { api, advance: (ms: number) => (time += ms) };
};

const get = (path: string, headers: Record<string, string> = {}): Request =>
  new Request(`http://demo.test${path}`, { headers });

describe('the demo job API on pollite/server', () => {
  it('answers a job with a strong ETag, 304 while unchanged, 200 once progress moves', async () => {
    const { api, advance } = manualApi();
    const job = api.createJob({ duration: 10_000, step: 50 });
    advance(1000);
    const first = await api.handle(get(`/jobs/${job.id}`));
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    expect(await first.json()).toEqual({ id: job.id, status: 'running', progress: 0 });

    advance(1000);
    const same = await api.handle(get(`/jobs/${job.id}`, { 'if-none-match': `W/${etag}` }));
    expect(same.status).toBe(304);
    advance(4000);
    const moved = await api.handle(get(`/jobs/${job.id}`, { 'if-none-match': etag }));
    expect(moved.status).toBe(200);
    expect(await moved.json()).toEqual({ id: job.id, status: 'running', progress: 50 });
    expect(api.stats(job.id)).toMatchObject({ requests: 3, notModified: 1, errors: 0 });
  });

  it('sends Retry-After in seconds during a scripted outage and a rate limit, and counts who ignored it', async () => {
    const { api, advance } = manualApi();
    const job = api.createJob({
      misbehaviour: [
        { from: 0, to: 1000, kind: 'outage', retryAfter: 2 },
        { from: 1000, to: 2000, kind: 'rate-limit' },
        { from: 2000, to: 3000, kind: 'errors' },
      ],
    });
    const outage = await api.handle(get(`/jobs/${job.id}`));
    expect([outage.status, outage.headers.get('retry-after')]).toEqual([503, '2']);
    expect(await outage.json()).toEqual({ error: 'outage' });
    advance(1000);
    const limited = await api.handle(get(`/jobs/${job.id}`));
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '1']);
    advance(1000);
    const broken = await api.handle(get(`/jobs/${job.id}`));
    expect([broken.status, broken.headers.get('retry-after')]).toEqual([500, null]);
    expect(api.stats(job.id)).toMatchObject({ requests: 3, errors: 3, ignoredRetryAfter: 1 });
  });

  it('exposes what a poller reads to other origins and answers preflights (default CORS)', async () => {
    const { api } = manualApi();
    const job = api.createJob();
    const response = await api.handle(get(`/jobs/${job.id}`, { origin: APP }));
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toBe(
      'ETag, Last-Modified, Retry-After, Retry-After-Ms, X-Ms-Retry-After-Ms, X-Poll-Interval, RateLimit, RateLimit-Policy, RateLimit-Reset, RateLimit-Remaining, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Retry-After, Grpc-Retry-Pushback-Ms, Location, Operation-Location, Preference-Applied',
    );
    const preflight = await api.handle(
      new Request(`http://demo.test/jobs`, {
        method: 'OPTIONS',
        headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      }),
    );
    expect(preflight.status).toBe(204);
    // The demo's own allowHeaders: ['Content-Type'] is among the defaults already, so listed once.
    expect(preflight.headers.get('access-control-allow-headers')).toBe('If-None-Match, If-Modified-Since, Idempotency-Key, Authorization, Content-Type, Prefer');
    const plain = await api.handle(new Request('http://demo.test/jobs', { method: 'OPTIONS' }));
    expect([plain.status, plain.headers.get('allow')]).toEqual([204, 'GET, HEAD, POST, OPTIONS']);
  });

  it("with cors: 'origin-only' allows the origin but exposes nothing; with cors: false sends no CORS at all", async () => {
    const naive = manualApi({ cors: 'origin-only' }).api;
    const job = naive.createJob();
    const response = await naive.handle(get(`/jobs/${job.id}`, { origin: APP }));
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toBeNull();
    expect(response.headers.get('etag')).not.toBeNull();

    const none = manualApi({ cors: false }).api;
    const other = none.createJob();
    const bare = await none.handle(get(`/jobs/${other.id}`, { origin: APP }));
    expect(bare.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('keeps its other routes: POST /jobs, stats, health, control, 404', async () => {
    const { api } = manualApi();
    const created = await api.handle(
      new Request('http://demo.test/jobs', { method: 'POST', body: JSON.stringify({ duration: 500 }) }),
    );
    expect(created.status).toBe(201);
    const { id, url } = (await created.json()) as { id: string; url: string };
    expect(url).toBe(`/jobs/${id}`);
    expect(await (await api.handle(get(`/jobs/${id}/stats`))).json()).toMatchObject({ requests: 0 });
    expect(await (await api.handle(get('/health'))).json()).toEqual({ ok: true });
    await api.handle(new Request('http://demo.test/control', { method: 'POST', body: JSON.stringify({ errors: true }) }));
    expect(await (await api.handle(get('/control'))).json()).toEqual({ errors: true });
    expect((await api.handle(get('/jobs/999'))).status).toBe(404);
    expect((await api.handle(get('/nope'))).status).toBe(404);
  });
});

describe('startDemoServer (toNodeHandler)', () => {
  let server: DemoServer | undefined;
  afterEach(() => server?.close());

  it('serves the API over real HTTP: 200, then 304 to the ETag it sent', async () => {
    server = await startDemoServer();
    const job = server.api.createJob({ duration: 60_000, step: 50 });
    const first = await fetch(`${server.url}/jobs/${job.id}`);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    const second = await fetch(`${server.url}/jobs/${job.id}`, { headers: { 'if-none-match': etag } });
    expect(second.status).toBe(304);
    expect(server.api.stats(job.id)).toMatchObject({ requests: 2, notModified: 1 });
  });
});
