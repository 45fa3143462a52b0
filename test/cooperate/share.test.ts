import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns, share, shareTabs } from '../../src/cooperate/index.js';
import { HttpError, poll, PollGaveUpError, type PollEvent } from '../../src/index.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';
import { until, virtualClock } from './helpers/virtual-clock.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearCooldowns();
});

interface Tick {
  n: number;
}
/** Answers {n} with a counter per path. */
async function counting(): Promise<TestServer> {
  const counts = new Map<string, number>();
  return startServer((req, res) => {
    const n = (counts.get(req.url!) ?? 0) + 1;
    counts.set(req.url!, n);
    sendJson(res, 200, { n });
  });
}

describe('share()', () => {
  it('N callers of one URL cost one request per interval; each gets every update and its own isDone', async () => {
    server = await counting();
    const clock = virtualClock();
    const seen: number[][] = [[], [], [], [], []];
    const results = [1, 2, 3, 4, 5].map((last, i) =>
      poll<Tick>(`${server!.url}/job`, { use: [share()], interval: 1000, env: clock.env(), isDone: (t) => t.n >= last, onUpdate: (t) => void seen[i]!.push(t.n) }),
    );
    for (let round = 1; round < 5; round += 1) {
      await until(() => server!.requests.length === round && clock.pending() === 1, `request ${round}`);
      await clock.advance(1000);
    }
    expect((await Promise.all(results)).map((t) => t.n)).toEqual([1, 2, 3, 4, 5]);
    expect(server.requests).toHaveLength(5);
    expect(seen).toEqual([[1], [1, 2], [1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4, 5]]);
    expect(clock.pending()).toBe(0); // the loop stopped with its last caller
  });

  it('a different method or header is a different loop; header order and case are not', async () => {
    server = await counting();
    const base = { use: [share()], isDone: () => true } as const;
    await Promise.all([
      poll(`${server.url}/x`, { ...base, init: { headers: { 'X-A': '1', 'x-b': '2' } } }),
      poll(`${server.url}/x`, { ...base, init: { headers: { 'x-b': '2', 'x-a': '1' } } }),
      poll(`${server.url}/x`, { ...base, init: { headers: { 'x-a': '2' } } }),
      poll(`${server.url}/x`, { ...base, init: { method: 'POST' } }),
      poll(`${server.url}/y`, base),
    ]);
    expect(server.requests.map((r) => `${r.method} ${r.path} ${r.headers['x-a'] ?? '-'}`).sort()).toEqual(['GET /x 1', 'GET /x 2', 'GET /y -', 'POST /x -']);
  });

  it('a different body is a different loop: each caller gets the answer to its own body; the same body shares', async () => {
    server = await startServer((req, res, seen) => sendJson(res, 200, { echo: seen.body }));
    const post = (body: BodyInit): Promise<{ echo: string }> =>
      poll<{ echo: string }>(`${server!.url}/search`, { use: [share()], isDone: () => true, init: { method: 'POST', body } });
    const answers = await Promise.all([post('cats'), post('dogs'), post('cats'), post(new URLSearchParams({ q: 'owls' })), post(new URLSearchParams({ q: 'owls' }))]);
    expect(answers.map((a) => a.echo)).toEqual(['cats', 'dogs', 'cats', 'q=owls', 'q=owls']);
    expect(server.requests.map((r) => r.body).sort()).toEqual(['cats', 'dogs', 'q=owls']);
  });

  it("a body that cannot be compared without reading it (a Request's own stream, a Blob) is polled on its own, never shared", async () => {
    server = await startServer((req, res, seen) => sendJson(res, 200, { echo: seen.body }));
    const own = (text: string): Request => new Request(`${server!.url}/s`, { method: 'POST', body: text });
    const base = { use: [share()], isDone: () => true } as const;
    const answers = await Promise.all([
      poll<{ echo: string }>(own('one'), base),
      poll<{ echo: string }>(own('two'), base),
      poll<{ echo: string }>(`${server.url}/s`, { ...base, init: { method: 'POST', body: new Blob(['three']) } }),
      poll<{ echo: string }>(`${server.url}/s`, { ...base, init: { method: 'POST', body: new Blob(['four']) } }),
    ]);
    expect(answers.map((a) => a.echo)).toEqual(['one', 'two', 'three', 'four']);
    expect(server.requests).toHaveLength(4);
    // A ReadableStream as `init.body` can be sent once: poll refuses it before sending, shared or not.
    const stream = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(new TextEncoder().encode('five')), c.close()) });
    await expect(poll(`${server.url}/s`, { ...base, init: { method: 'POST', body: stream, duplex: 'half' } as RequestInit })).rejects.toThrow(/`init\.body`/);
    expect(server.requests).toHaveLength(4);
  });

  it('aborting one caller leaves the others polling; aborting the last stops the loop', async () => {
    server = await counting();
    const clock = virtualClock();
    const a = new AbortController();
    const b = new AbortController();
    const options = { use: [share()], interval: 1000, env: clock.env() } as const;
    const first = poll<Tick>(`${server.url}/job`, { ...options, signal: a.signal });
    const second = poll<Tick>(`${server.url}/job`, { ...options, signal: b.signal });
    await until(() => server!.requests.length === 1 && clock.pending() === 1);
    a.abort(new Error('first left'));
    await expect(first).rejects.toThrow('first left');
    await clock.advance(1000);
    await until(() => server!.requests.length === 2 && clock.pending() === 1);
    b.abort(new Error('second left'));
    await expect(second).rejects.toThrow('second left');
    expect(clock.pending()).toBe(0);
    await clock.advance(5000);
    expect(server.requests).toHaveLength(2);
  });

  it("a caller whose onUpdate or onEvent throws is rejected with that error alone; the others keep polling", async () => {
    server = await counting();
    const clock = virtualClock();
    const options = { use: [share()], interval: 1000, env: clock.env() } as const;
    const badUpdate = poll<Tick>(`${server.url}/job`, {
      ...options,
      onUpdate: (t) => {
        if (t.n === 2) throw new Error('onUpdate broke');
      },
    }).catch((e: unknown) => e);
    const badEvent = poll<Tick>(`${server.url}/job`, {
      ...options,
      onEvent: (e) => {
        if (e.type === 'wait') throw new Error('onEvent broke');
      },
    }).catch((e: unknown) => e);
    const seen: number[] = [];
    const good = poll<Tick>(`${server.url}/job`, { ...options, isDone: (t) => t.n >= 3, onUpdate: (t) => void seen.push(t.n) });
    expect(await badEvent).toMatchObject({ message: 'onEvent broke' });
    await until(() => server!.requests.length === 1 && clock.pending() === 1);
    await clock.advance(1000);
    expect(await badUpdate).toMatchObject({ message: 'onUpdate broke' });
    await until(() => server!.requests.length === 2 && clock.pending() === 1);
    await clock.advance(1000);
    expect((await good).n).toBe(3);
    expect(seen).toEqual([1, 2, 3]);
    expect(server.requests).toHaveLength(3);
  });

  it('a caller joining a running loop gets its latest body at once, and events', async () => {
    server = await counting();
    const clock = virtualClock();
    const first = poll<Tick>(`${server.url}/job`, { use: [share()], interval: 1000, env: clock.env(), isDone: (t) => t.n >= 2 });
    await until(() => server!.requests.length === 1 && clock.pending() === 1);
    const updates: number[] = [];
    const events: PollEvent[] = [];
    const late = poll<Tick>(`${server.url}/job`, { use: [share()], env: clock.env(), isDone: (t) => t.n >= 2, onUpdate: (t) => void updates.push(t.n), onEvent: (e) => events.push(e) });
    expect(updates).toEqual([1]);
    await clock.advance(1000);
    await Promise.all([first, late]);
    expect(updates).toEqual([1, 2]);
    expect(events.map((e) => e.type)).toEqual(['share', 'request', 'response']);
    expect(events[0]).toEqual({ type: 'share', role: 'follower' });
    expect(server.requests).toHaveLength(2);
  });

  it('says each caller\'s role, and why a caller of a URL another loop polls could not join it', async () => {
    server = await counting();
    const clock = virtualClock();
    const url = `${server.url}/job`;
    const roles: Array<PollEvent[]> = [[], [], [], []];
    const on = (i: number) => (e: PollEvent) => void (e.type === 'share' && roles[i]!.push(e));
    const wrapped: typeof fetch = (input, init) => fetch(input, init);
    const calls = [
      poll<Tick>(url, { use: [share()], interval: 1000, env: clock.env(), isDone: (t) => t.n >= 4, onEvent: on(0) }),
      poll<Tick>(url, { use: [share()], interval: 1000, env: clock.env(), isDone: (t) => t.n >= 4, onEvent: on(1) }),
      // Its own fetch wrapper, no key: a loop of its own, and the event says why.
      poll<Tick>(url, { use: [share()], interval: 1000, env: clock.env(), fetch: wrapped, isDone: (t) => t.n >= 4, onEvent: on(2) }),
      // Another header: what is sent differs.
      poll<Tick>(url, { use: [share()], interval: 1000, env: clock.env(), init: { headers: { 'x-user': 'b' } }, isDone: (t) => t.n >= 4, onEvent: on(3) }),
    ];
    expect(roles).toEqual([
      [{ type: 'share', role: 'leader' }],
      [{ type: 'share', role: 'follower' }],
      [{ type: 'share', role: 'leader', apart: 'fetch' }],
      [{ type: 'share', role: 'leader', apart: 'request' }],
    ]);
    await until(() => server!.requests.length === 3 && clock.pending() === 3);
    await clock.advance(1000);
    await Promise.all(calls);
    // Once every loop of the URL has ended, a new one is alone again.
    const events: PollEvent[] = [];
    await poll<Tick>(url, { use: [share()], fetch: wrapped, isDone: () => true, onEvent: (e) => void (e.type === 'share' && events.push(e)) });
    expect(events).toEqual([{ type: 'share', role: 'leader' }]);
  });

  it('a late caller whose isDone accepts the latest body resolves without a request', async () => {
    server = await counting();
    const clock = virtualClock();
    const first = poll<Tick>(`${server.url}/job`, { use: [share()], interval: 1000, env: clock.env(), isDone: (t) => t.n >= 3 });
    await until(() => server!.requests.length === 1 && clock.pending() === 1);
    expect(await poll<Tick>(`${server.url}/job`, { use: [share()], isDone: () => true })).toEqual({ n: 1 });
    expect(server.requests).toHaveLength(1);
    await clock.advance(1000);
    await until(() => server!.requests.length === 2 && clock.pending() === 1);
    await clock.advance(1000);
    await first;
    expect(server.requests).toHaveLength(3);
  });

  it('a 404 rejects every caller with the HttpError; giving up rejects every caller', async () => {
    server = await startServer(scripted([(res) => sendJson(res, 404, {})]));
    const all = [1, 2, 3].map(() => poll(`${server!.url}/gone`, { use: [share()] }).catch((e: unknown) => e));
    const errors = await Promise.all(all);
    expect(errors.every((e) => e instanceof HttpError && e.status === 404)).toBe(true);
    expect(server.requests).toHaveLength(1);
    await server.close();
    server = await startServer(scripted([(res) => sendJson(res, 500, {})]));
    const gaveUp = await Promise.all([1, 2].map(() => poll(server!.url, { use: [share()], retries: 1, backoff: () => 0, interval: 0 }).catch((e: unknown) => e)));
    expect(gaveUp.every((e) => e instanceof PollGaveUpError)).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it("each caller's timeout rejects only that caller", async () => {
    server = await counting();
    const clock = virtualClock();
    const short = poll<Tick>(`${server.url}/job`, { use: [share()], interval: 1000, timeout: 1500, env: clock.env() }).catch((e: unknown) => e);
    const long = poll<Tick>(`${server.url}/job`, { use: [share()], env: clock.env(), isDone: (t) => t.n >= 3 });
    await until(() => server!.requests.length === 1 && clock.pending() === 2);
    await clock.advance(1000);
    await until(() => server!.requests.length === 2 && clock.pending() === 2);
    await clock.advance(500);
    expect(await short).toMatchObject({ name: 'TimeoutError' });
    await clock.advance(500);
    expect((await long).n).toBe(3);
  });

  it('shareTabs() without Web Locks (Node) behaves like share()', async () => {
    expect((globalThis as { navigator?: { locks?: unknown } }).navigator?.locks).toBeUndefined();
    server = await counting();
    const clock = virtualClock();
    const results = [2, 2, 2].map((last) => poll<Tick>(`${server!.url}/job`, { use: [shareTabs()], interval: 1000, env: clock.env(), isDone: (t) => t.n >= last }));
    await until(() => server!.requests.length === 1 && clock.pending() === 1);
    await clock.advance(1000);
    await Promise.all(results);
    expect(server.requests).toHaveLength(2);
  });

  it('polls without share() stay independent', async () => {
    server = await counting();
    await Promise.all([1, 2, 3].map(() => poll(`${server!.url}/job`, { isDone: () => true })));
    expect(server.requests).toHaveLength(3);
  });
});

describe('share() and shareTabs() in one realm, at the edges', () => {
  it('a loop whose callers are all done is gone: a later poll of the same request sends its own first request', async () => {
    server = await counting();
    expect(await poll<Tick>(`${server.url}/job`, { use: [share()], isDone: () => true })).toEqual({ n: 1 });
    expect(await poll<Tick>(`${server.url}/job`, { use: [share()], isDone: () => true })).toEqual({ n: 2 });
    expect(await poll<Tick>(`${server.url}/job`, { use: [shareTabs()], isDone: () => true })).toEqual({ n: 3 });
    expect(server.requests).toHaveLength(3);
  });

  it("a caller's timeout rejects it with the exact message", async () => {
    server = await counting();
    const clock = virtualClock();
    const short = poll<Tick>(`${server.url}/job`, { use: [share()], interval: 1000, timeout: 1500, env: clock.env() }).catch((e: unknown) => e);
    await until(() => server!.requests.length === 1 && clock.pending() === 2);
    await clock.advance(1500);
    expect(await short).toMatchObject({ name: 'TimeoutError', message: 'Polling timed out after 1500 ms' });
  });

  it("the headers of a Request and of init, in either order, are one request", async () => {
    server = await counting();
    const url = `${server.url}/job`;
    const clock = virtualClock();
    const both = [
      poll<Tick>(new Request(url, { headers: { 'x-b': '2' } }), { use: [share()], init: { headers: { 'x-a': '1' } }, interval: 1000, env: clock.env(), isDone: (t) => t.n >= 2 }),
      poll<Tick>(new Request(url, { headers: { 'x-a': '1' } }), { use: [share()], init: { headers: { 'x-b': '2' } }, interval: 1000, env: clock.env(), isDone: (t) => t.n >= 2 }),
    ];
    await until(() => server!.requests.length === 1 && clock.pending() === 1);
    await clock.advance(1000);
    expect((await Promise.all(both)).map((t) => t.n)).toEqual([2, 2]);
    expect(server.requests).toHaveLength(2);
  });

  it('without Web Locks, shareTabs() and share() of one request join one loop; other URLs are other loops', async () => {
    server = await counting();
    const clock = virtualClock();
    const options = { interval: 1000, env: clock.env(), isDone: (t: Tick) => t.n >= 2 } as const;
    const results = [
      poll<Tick>(`${server.url}/a`, { ...options, use: [share()] }),
      poll<Tick>(`${server.url}/a`, { ...options, use: [shareTabs()] }),
      poll<Tick>(`${server.url}/b`, { ...options, use: [shareTabs()] }),
    ];
    await until(() => server!.requests.length === 2 && clock.pending() === 2);
    await clock.advance(1000);
    expect((await Promise.all(results)).map((t) => t.n)).toEqual([2, 2, 2]);
    expect(server.requests.map((r) => r.path).sort()).toEqual(['/a', '/a', '/b', '/b']);
  });

  it('without Web Locks, a 404 rejects every shareTabs() caller with the HttpError', async () => {
    server = await startServer(scripted([(res) => sendJson(res, 404, {})]));
    const errors = await Promise.all([1, 2].map(() => poll(`${server!.url}/gone`, { use: [shareTabs()] }).catch((e: unknown) => e)));
    expect(errors.map((e) => (e instanceof HttpError ? e.status : e))).toEqual([404, 404]);
    expect(server.requests).toHaveLength(1);
  });
});
