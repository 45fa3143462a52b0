import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooperate/index.js';
import { createRetryBudget, fetchWithRetry, HttpError, retry, type RetryOptions } from '../../src/index.js';
import { checkpoint, memoryStore, readCheckpoint } from '../../src/resume/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

// What the issue 34 mutation run of src/retry found untested (docs/mutation.md,
// "src/retry (issue 34, finished)"): a Request's own body, the default methods
// and PATCH as a write, an error status under a manual redirect, a status
// outside `statusCodes` (refunded, its body not read for a hint), the body
// followed after the headers, a resumed run's failures, the origin `retry`
// learns from an HttpError, and the names of `init` under the global fetch.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearCooldowns();
});

type GiveUp = Parameters<NonNullable<RetryOptions['onGiveUp']>>[0];
const paths = (): string[] => server!.requests.map((r) => `${r.method} ${r.path}`);

/** Waits (real time, at most 10 s) until `condition` holds; a stuck condition fails the test. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 10_000) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe("fetchWithRetry: a Request's own body", () => {
  it('is sent once: a 503 resolves as it is, given up as body-not-replayable', async () => {
    server = await startServer(scripted([json(503, {}), json(200, {})]));
    const gaveUp: GiveUp[] = [];
    const { env, delays } = recordingEnv();
    const input = new Request(`${server.url}/item`, { method: 'PUT', body: 'own' });
    const response = await fetchWithRetry(input, { retry: { env, onGiveUp: (info) => gaveUp.push(info) } });
    expect(response.status).toBe(503);
    expect(server.requests.map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual(['PUT /item own']);
    expect(gaveUp.map(({ attempt, reason }) => ({ attempt, reason }))).toEqual([{ attempt: 1, reason: 'body-not-replayable' }]);
    expect(delays).toEqual([]);
  });
});

/** A fetch that answers the n-th call with `statuses[n]` (the last one again after that), recording each call's method as fetch got it. */
function statusFetch(statuses: number[]) {
  const methods: string[] = [];
  const fetchImpl = (async (_input: RequestInfo | URL, init?: RequestInit) => {
    methods.push(String(init?.method));
    return new Response(null, { status: statuses[Math.min(methods.length - 1, statuses.length - 1)] });
  }) as typeof fetch;
  return { fetch: fetchImpl, methods };
}

describe('fetchWithRetry: the methods retried by default', () => {
  // A fetch of the test's own: Node's fetch refuses to send a TRACE.
  it.each(['HEAD', 'OPTIONS', 'DELETE', 'TRACE'])('%s answered 503: sent again', async (method) => {
    const sent = statusFetch([503, 204]);
    const { env, delays } = recordingEnv({ random: 0.5 });
    const response = await fetchWithRetry('http://127.0.0.1:9/item', { method, retry: { fetch: sent.fetch, env } });
    expect(response.status).toBe(204);
    expect(sent.methods).toEqual([method, method]);
    expect(delays).toEqual([250]);
  });

  it('a PATCH is a write: without a key it is sent once even when listed, given up as not-idempotent', async () => {
    const sent = statusFetch([503, 204]);
    const gaveUp: GiveUp[] = [];
    const response = await fetchWithRetry('http://127.0.0.1:9/item', {
      method: 'PATCH',
      body: 'x',
      retry: { fetch: sent.fetch, env: recordingEnv().env, methods: ['PATCH'], onGiveUp: (info) => gaveUp.push(info) },
    });
    expect(response.status).toBe(503);
    expect(sent.methods).toEqual(['PATCH']);
    expect(gaveUp.map(({ attempt, reason }) => ({ attempt, reason }))).toEqual([{ attempt: 1, reason: 'not-idempotent' }]);
  });
});

describe("fetchWithRetry: throwHttpErrors with redirect: 'manual'", () => {
  it.each([400, 404])('a %i is still an error status: it rejects with its HttpError, not retried', async (code) => {
    server = await startServer(scripted([json(code, { code }), json(200, {})]));
    const error = await fetchWithRetry(`${server.url}/item`, { redirect: 'manual', retry: { throwHttpErrors: true, env: recordingEnv().env } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(code);
    expect(paths()).toEqual(['GET /item']);
  });
});

describe('fetchWithRetry: a status outside statusCodes', () => {
  it('ends the call as one that did not fail: the budget refunds after the 404 that followed a retried 503', async () => {
    server = await startServer(scripted([json(503, {}), json(404, {})]));
    const budget = createRetryBudget({ capacity: 10, retryCost: 5, successRefund: 1 });
    const gaveUp: GiveUp[] = [];
    const { env, delays } = recordingEnv({ random: 0.5 });
    const response = await fetchWithRetry(`${server.url}/item`, { retry: { env, budget, onGiveUp: (info) => gaveUp.push(info) } });
    expect(response.status).toBe(404);
    expect(paths()).toEqual(['GET /item', 'GET /item']);
    expect(delays).toEqual([250]);
    expect(gaveUp.map(({ attempt, reason }) => ({ attempt, reason }))).toEqual([{ attempt: 2, reason: 'not-retryable' }]);
    // 10, less 5 for the retry, plus 1 back.
    expect(budget.available).toBe(6);
  });

  it("is not read for a body's retry hint: a 503 not retried, whose JSON says retry_after 10, cools nothing", async () => {
    server = await startServer((req, res) => (req.url === '/down' ? sendJson(res, 503, { retry_after: 10 }) : sendJson(res, 200, {})));
    const { env, delays } = recordingEnv({ random: 0 });
    const down = await fetchWithRetry(`${server.url}/down`, { retry: { env, statusCodes: [500] } });
    expect([down.status, await down.json()]).toEqual([503, { retry_after: 10 }]);
    const next = await fetchWithRetry(`${server.url}/next`, { retry: { env } });
    expect(next.status).toBe(200);
    expect(paths()).toEqual(['GET /down', 'GET /next']);
    expect(delays).toEqual([]);
  });
});

describe('fetchWithRetry: the body followed after the headers', () => {
  it("keeps the answer's url, redirected and type, and reads to the end", async () => {
    server = await startServer((req, res) => {
      if (req.url === '/old') {
        res.writeHead(302, { location: '/new' });
        res.end();
      } else sendJson(res, 200, { at: req.url });
    });
    // A signal: the call can be aborted, so the body is followed.
    const response = await fetchWithRetry(`${server.url}/old`, { signal: new AbortController().signal, retry: { env: recordingEnv().env } });
    expect([response.url, response.redirected, response.type]).toEqual([`${server.url}/new`, true, 'basic']);
    expect(await response.text()).toBe('{"at":"/new"}');
    expect(paths()).toEqual(['GET /old', 'GET /new']);
  });
});

describe('fetchWithRetry resumed from a checkpoint', () => {
  it('goes on counting the failures of the run it resumes: with retries: 1, one more request, then the 503', async () => {
    server = await startServer(scripted([json(503, {})]));
    const store = memoryStore();
    const controller = new AbortController();
    const first = recordingEnv({ auto: false });
    const stopped = fetchWithRetry(`${server.url}/orders`, {
      method: 'POST',
      body: '{"item":1}',
      retry: {
        env: first.env,
        retries: 1,
        backoff: () => 1000,
        idempotencyKey: 'order-1',
        signal: controller.signal,
        resume: checkpoint({ store, key: 'order' }),
        onRetry: () => queueMicrotask(() => controller.abort()),
      },
    });
    await expect(stopped).rejects.toThrow();
    expect(readCheckpoint(store.entries.get('order')!, 'order')).toMatchObject({ kind: 'fetch', sent: true, failures: 1 });
    const second = recordingEnv();
    const gaveUp: GiveUp[] = [];
    const response = await fetchWithRetry(`${server.url}/orders`, {
      method: 'POST',
      body: '{"item":1}',
      retry: { env: second.env, retries: 1, backoff: () => 1000, idempotencyKey: 'order-1', resume: checkpoint({ store, key: 'order' }), onGiveUp: (info) => gaveUp.push(info) },
    });
    expect(response.status).toBe(503);
    expect(server.requests.map((r) => `${r.method} ${r.path} ${String(r.headers['idempotency-key'])}`)).toEqual(['POST /orders order-1', 'POST /orders order-1']);
    expect(gaveUp.map(({ attempt, reason }) => ({ attempt, reason }))).toEqual([{ attempt: 2, reason: 'exhausted' }]);
  });
});

/** /outage answers 503 + Retry-After: 10 once, then 200; every other path 200. */
async function outageServer(): Promise<TestServer> {
  let outages = 0;
  return startServer((req, res) => {
    if (req.url === '/outage' && outages++ === 0) return sendJson(res, 503, {}, { 'retry-after': '10' });
    sendJson(res, 200, { path: req.url });
  });
}

/** A `retry` whose first call throws `first`, and every later one GETs /outage, throwing the HttpError of a failed answer. */
function retryOutage(env: RetryOptions['env'], first: HttpError) {
  let calls = 0;
  const value = retry(
    async ({ signal }) => {
      calls += 1;
      if (calls === 1) throw first;
      const response = await fetch(`${server!.url}/outage`, { signal });
      if (!response.ok) throw new HttpError(response);
      return response.status;
    },
    { env, backoff: () => 0 },
  );
  return { value, calls: () => calls };
}

describe("retry: the origin of an HttpError's url", () => {
  it('is learnt from the first error that names one: an HttpError without a url (a Response made by hand) does not stop it', async () => {
    server = await outageServer();
    const { clock, env, delays } = recordingEnv({ random: 0, auto: false });
    const unnamed = new HttpError(new Response(null, { status: 503 }));
    expect(unnamed.url).toBe('');
    const retried = retryOutage(env, unnamed);
    // The first failure's wait (backoff 0), then the 503's 10 s.
    await until(() => clock.pending('env') === 1, 'the first wait');
    await clock.advance(0);
    await until(() => server!.requests.length === 1 && clock.pending('env') === 1, "the 503's wait");
    const held = fetchWithRetry(`${server.url}/held`, { retry: { env } });
    await until(() => clock.pending('env') === 2 || server!.requests.length > 1, 'the cooldown hold');
    expect(paths()).toEqual(['GET /outage']);
    expect(delays).toEqual([0, 10_000, 10_000]);
    await clock.advance(10_000);
    expect([await retried.value, (await held).status, retried.calls()]).toEqual([200, 200, 3]);
  });
});

describe('fetchWithRetry option checks', () => {
  it("checks init's names when retry.fetch is the global fetch, as when none is given: nothing sent", async () => {
    server = await startServer(scripted([json(200, {})]));
    const error = await fetchWithRetry(server.url, { methd: 'POST', retry: { fetch: globalThis.fetch, env: recordingEnv().env } } as never).catch(
      (e: unknown) => e,
    );
    expect(error).toStrictEqual(new TypeError('Unknown option `methd`: did you mean `method`?'));
    expect(server.requests).toHaveLength(0);
  });
});
