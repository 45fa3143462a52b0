import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooperate/index.js';
import { fetchWithRetry, HttpError, poll, retry, type PollEvent } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { until, virtualClock } from './helpers/virtual-clock.js';

// The origin cooldown is one per realm: `retry` and `fetchWithRetry` both
// announce it and honour it, alongside `poll`.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearCooldowns();
});

/** /outage answers 503 + Retry-After: 10 once, then 200; every other path: 200 done. */
async function outageServer(): Promise<TestServer> {
  let outages = 0;
  return startServer((req, res) => {
    if (req.url === '/outage' && outages++ === 0) return sendJson(res, 503, {}, { 'retry-after': '10' });
    sendJson(res, 200, { status: 'done' });
  });
}
const paths = (): string[] => server!.requests.map((r) => r.path);

describe('origin cooldown across poll, retry and fetchWithRetry', () => {
  it('a 503 drawn by fetchWithRetry quiets a poll of the same origin', async () => {
    server = await outageServer();
    const clock = virtualClock({ random: 0 });
    const fetched = fetchWithRetry(`${server.url}/outage`, { retry: { env: clock.env() } });
    await until(() => clock.pending() === 1, 'the retry wait');
    const events: PollEvent[] = [];
    const polled = poll(`${server.url}/job`, { isDone: () => true, env: clock.env(), onEvent: (e) => events.push(e) });
    await until(() => clock.pending() === 2, 'the cooldown wait');
    expect(events).toEqual([{ type: 'cooldown', delay: 10_000, at: clock.now() + 10_000, origin: server.url }]);
    await clock.advance(9999);
    expect(paths()).toEqual(['/outage']);
    await clock.advance(1);
    expect((await fetched).status).toBe(200);
    await polled;
    expect(paths().slice(1).sort()).toEqual(['/job', '/outage']);
  });

  it('a 503 drawn by a poll makes fetchWithRetry wait before sending, unless it opts out', async () => {
    server = await outageServer();
    const clock = virtualClock({ random: 0 });
    const polled = poll(`${server.url}/outage`, { isDone: () => true, env: clock.env() });
    await until(() => clock.pending() === 1);
    const waiting = fetchWithRetry(`${server.url}/a`, { retry: { env: clock.env() } });
    const optedOut = await fetchWithRetry(`${server.url}/b`, { retry: { env: clock.env(), cooldown: false } });
    expect(optedOut.status).toBe(200);
    await until(() => clock.pending() === 2);
    expect(paths()).toEqual(['/outage', '/b']);
    await clock.advance(10_000);
    expect((await waiting).status).toBe(200);
    await polled;
    expect(paths()).toContain('/a');
  });

  it('a cooldown that ends past the deadline sends nothing: fetchWithRetry waits for the deadline and times out at it, never before', async () => {
    server = await outageServer();
    const clock = virtualClock({ random: 0 });
    const polled = poll(`${server.url}/outage`, { isDone: () => true, env: clock.env() });
    await until(() => clock.pending() === 1, 'the cooldown set by the 503');
    const started = clock.now();
    let settled: unknown;
    const fetched = fetchWithRetry(`${server.url}/a`, { retry: { env: clock.env(), timeout: 700 } }).then(
      () => (settled = 'resolved'),
      (e: unknown) => (settled = e),
    );
    await until(() => clock.pending() === 2, 'the deadline');
    // The cooldown (10 s, a server's floor) cannot be undercut and crosses the 700 ms deadline: no try fits.
    await clock.advance(699);
    expect(settled).toBeUndefined();
    expect(paths()).toEqual(['/outage']);
    await clock.advance(1);
    await fetched;
    const error = settled as DOMException;
    expect(error).toBeInstanceOf(DOMException);
    expect(error.name).toBe('TimeoutError');
    expect(error.message).toBe('Retrying timed out after 700 ms');
    // Nothing was tried: no failure to name as the cause.
    expect((error as { cause?: unknown }).cause).toBeUndefined();
    expect(clock.now()).toBe(started + 700);
    expect(paths()).toEqual(['/outage']);
    await clock.advance(10_000);
    await polled;
  });

  it('retry learns the origin from an HttpError: it announces the cooldown, then honours a later one', async () => {
    server = await outageServer();
    const clock = virtualClock({ random: 0 });
    let calls = 0;
    const retried = retry(
      async ({ signal }) => {
        calls += 1;
        const response = await fetch(`${server!.url}/outage`, { signal });
        if (!response.ok) throw new HttpError(response, `${server!.url}/outage`);
        return response.status;
      },
      { env: clock.env() },
    );
    await until(() => clock.pending() === 1);
    const polled = poll(`${server.url}/job`, { isDone: () => true, env: clock.env() });
    await until(() => clock.pending() === 2);
    expect(paths()).toEqual(['/outage']);
    await clock.advance(10_000);
    expect(await retried).toBe(200);
    await polled;
    expect(calls).toBe(2);
    expect(paths().slice(1).sort()).toEqual(['/job', '/outage']);
  });

  it('fetchWithRetry with cooldown: false announces nothing', async () => {
    server = await outageServer();
    const clock = virtualClock({ random: 0 });
    const fetched = fetchWithRetry(`${server.url}/outage`, { retry: { env: clock.env(), cooldown: false } });
    await until(() => clock.pending() === 1);
    await poll(`${server.url}/job`, { isDone: () => true, env: clock.env() });
    expect(paths()).toEqual(['/outage', '/job']);
    await clock.advance(10_000);
    await fetched;
  });

  it('refuses a non-boolean cooldown with a TypeError naming it', async () => {
    await expect(retry(async () => 1, { cooldown: 'no' as never })).rejects.toThrow(/`cooldown`/);
    await expect(fetchWithRetry('http://127.0.0.1:9/x', { retry: { cooldown: 0 as never } })).rejects.toThrow(/`retry\.cooldown`/);
  });
});
