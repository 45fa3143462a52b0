import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCluster } from '../../src/cluster/index.js';
import { jobKeys } from '../../src/cluster/keys.js';
import { requestFactory } from '../../src/http/request.js';
import { poll, type PollEvent } from '../../src/index.js';
import { sha256Hex, shareKey, type PollFeature } from '../../src/kit/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { until } from './helpers/processes.js';
import { scriptedRedis, type SentScript } from './share-local-redis.js';

// cluster.share() over a scripted ClusterRedis (no server: every script's
// reply is the test's, and what each one was sent is exact), polling a
// real node:http server, with an injected clock (`now` only: the waits
// are real). The lease is long, so that a check runs only when the test
// causes one (a release message, Redis back, a lost lease).

let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

async function counting(): Promise<TestServer> {
  let n = 0;
  return startServer((_req, res) => sendJson(res, 200, { n: ++n }));
}

const LEASE = 30_000;
const roles = (events: PollEvent[]): string[] => events.flatMap((e) => (e.type === 'share' ? [e.role] : []));

/** The leader's usual replies: the lease is ours, nothing kept; bodies stamped 101, 102...; waits and releases accepted. */
function leading(over: Partial<Record<SentScript['script'], (sent: SentScript) => unknown>> = {}) {
  let stamp = 100;
  return (sent: SentScript): unknown => {
    const own = over[sent.script];
    if (own) return own(sent);
    if (sent.script === 'ACQUIRE') return [1, -2, '0', LEASE];
    if (sent.script === 'PUBLISH') return String((stamp += 1));
    if (sent.script === 'LATEST') return ['0', ''];
    return 1;
  };
}

describe('cluster.share(): what the leader tells Redis', () => {
  it('takes the lease with its token, publishes each body and each wait, and releases keeping the next request one interval after its last', async () => {
    server = await counting();
    const r = scriptedRedis(leading());
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    let t = 1_000_000;
    const events: PollEvent[] = [];
    const body = await poll<{ n: number }>(`${server.url}/job`, {
      interval: 40,
      use: [cluster.share()],
      env: { now: () => t },
      onEvent: (e) => void events.push(e),
      // The last body comes 15 ms (in the injected clock) after its request: the next is due 25 ms after the release.
      onUpdate: (b) => void (b.n === 3 && (t += 15)),
      isDone: (b) => b.n >= 3,
    });
    expect(body).toEqual({ n: 3 });
    await until(() => r.names().includes('RELEASE'), 'the release', 2000);
    const [acquire] = r.sent;
    const [lease, next, last] = acquire!.keys;
    const token = acquire!.args[0]!;
    const channel = lease!.slice(0, -':lease'.length);
    expect(channel).toMatch(/^p:job:\{[0-9a-f]{64}\}$/);
    expect([lease, next, last]).toEqual([`${channel}:lease`, `${channel}:next`, `${channel}:last`]);
    expect(r.sent).toEqual([
      { script: 'ACQUIRE', keys: [lease, next, last], args: [token, String(LEASE)] },
      { script: 'PUBLISH', keys: [last, lease], args: [token, '{"n":1}', String(LEASE), channel] },
      { script: 'WAITING', keys: [next, lease], args: [token, '40', channel] },
      { script: 'PUBLISH', keys: [last, lease], args: [token, '{"n":2}', String(LEASE), channel] },
      { script: 'WAITING', keys: [next, lease], args: [token, '40', channel] },
      { script: 'PUBLISH', keys: [last, lease], args: [token, '{"n":3}', String(LEASE), channel] },
      { script: 'RELEASE', keys: [lease, next, last], args: [token, '25', channel] },
    ]);
    expect(roles(events)).toEqual(['leader']);
    expect(server.requests).toHaveLength(3);
    await cluster.close();
  });
});

/** ACQUIRE answers given in turn (then the lease held by another: a follower with nothing kept). */
const acquires =
  (...replies: unknown[]) =>
  (): unknown =>
    replies.length > 0 ? replies.shift() : [0, -2, '0', LEASE];

describe('cluster.share(): a follower', () => {
  it('delivers the newer bodies it hears, ignores older and malformed messages, and takes over when the leader releases, at the wait it announced', async () => {
    server = await counting();
    const r = scriptedRedis(leading({ ACQUIRE: acquires([0, -2, '0', LEASE], [1, -2, '105', LEASE]) }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    let t = 5000;
    const events: PollEvent[] = [];
    const got: unknown[] = [];
    const done = poll<{ n: number }>(`${server.url}/job`, {
      interval: 60,
      use: [cluster.share()],
      env: { now: () => t },
      onEvent: (e) => void events.push(e),
      onUpdate: (b) => void got.push(b),
      isDone: (b) => b.n === 1,
    });
    await until(() => roles(events).length === 1, 'the role', 2000);
    const channel = r.sent[0]!.keys[0]!.slice(0, -':lease'.length);
    expect(r.listeners(channel)).toBe(1);
    r.publish(channel, 'b105\n{"n":7}');
    for (const message of ['b104\n{"n":6}', 'b106{"n":8}', 'x107\n{"n":8}', 'b108\n{"n":', 'b105\n{"n":9}']) r.publish(channel, message);
    // A wait, then two that are not (a negative one, one that is no number).
    for (const message of ['w50', 'w-1', 'wx']) r.publish(channel, message);
    t += 20;
    r.publish(channel, 'r');
    expect((await done).n).toBe(1);
    expect(got).toEqual([{ n: 7 }, { n: 1 }]);
    expect(roles(events)).toEqual(['follower', 'leader']);
    // The wait the leader announced (50 ms from when it was heard), less the 20 ms since.
    expect(events.find((e) => e.type === 'wait')).toEqual({ type: 'wait', delay: 30, at: 5050 });
    expect(r.names().slice(0, 3)).toEqual(['ACQUIRE', 'ACQUIRE', 'PUBLISH']);
    expect(server.requests).toHaveLength(1);
    await cluster.close();
  });

  it.each([
    ['a wait longer than its own maxRetryAfter (or interval) is cut to it', 'w100000000000', [{ type: 'wait', delay: 300, at: 5300 }]],
    ['a wait that is no finite number is ignored', 'wInfinity', []],
  ])('as the next leader, %s', async (_name, message, waits) => {
    server = await counting();
    const r = scriptedRedis(leading({ ACQUIRE: acquires([0, -2, '0', LEASE], [1, -2, '0', LEASE]) }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const events: PollEvent[] = [];
    const done = poll<{ n: number }>(`${server.url}/job`, {
      interval: 60,
      maxRetryAfter: 300,
      use: [cluster.share()],
      env: { now: () => 5000 },
      onEvent: (e) => void events.push(e),
      isDone: (b) => b.n === 1,
    });
    await until(() => roles(events).length === 1, 'the role', 2000);
    const channel = r.sent[0]!.keys[0]!.slice(0, -':lease'.length);
    r.publish(channel, message);
    r.publish(channel, 'r');
    expect((await done).n).toBe(1);
    expect(roles(events)).toEqual(['follower', 'leader']);
    expect(events.filter((e) => e.type === 'wait')).toEqual(waits);
    await cluster.close();
  });

  it('without an announced wait, takes over one interval after the last body it heard; a lease due next in Redis is waited out as told', async () => {
    server = await counting();
    const r = scriptedRedis(leading({ ACQUIRE: acquires([0, -2, '0', LEASE], [1, -2, '0', LEASE]) }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    let t = 5000;
    const events: PollEvent[] = [];
    const done = poll<{ n: number }>(`${server.url}/job`, { interval: 60, use: [cluster.share()], env: { now: () => t }, onEvent: (e) => void events.push(e), isDone: (b) => b.n === 1 });
    await until(() => roles(events).length === 1, 'the role', 2000);
    const channel = r.sent[0]!.keys[0]!.slice(0, -':lease'.length);
    r.publish(channel, 'w500');
    r.publish(channel, 'b105\n{"n":7}'); // a body after the wait: the wait is over
    t += 15;
    r.publish(channel, 'r');
    await done;
    expect(events.find((e) => e.type === 'wait')).toEqual({ type: 'wait', delay: 45, at: 5060 });
    await cluster.close();

    const r2 = scriptedRedis(leading({ ACQUIRE: acquires([1, 70, '0', LEASE]) }));
    const second = createCluster({ redis: r2.redis, prefix: 'p:', lease: LEASE });
    const told: PollEvent[] = [];
    await poll(`${server.url}/job2`, { interval: 60, use: [second.share()], env: { now: () => t }, onEvent: (e) => void told.push(e), isDone: () => true });
    expect(told.find((e) => e.type === 'wait')).toEqual({ type: 'wait', delay: 70, at: 5085 });
    await second.close();
  });

  it('catches up from the kept body when it joins (a follower, or a leader before its first request), once, and only with a newer stamp and real JSON', async () => {
    server = await counting();
    const r = scriptedRedis(leading({ ACQUIRE: acquires([0, -2, '105', LEASE]), LATEST: () => ['105', '{"n":7}'] }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const got: unknown[] = [];
    const stop = new AbortController();
    const following = poll(`${server.url}/job`, { use: [cluster.share()], signal: stop.signal, onUpdate: (b) => void got.push(b), isDone: () => false });
    await until(() => got.length === 1, 'the kept body', 2000);
    expect(got).toEqual([{ n: 7 }]);
    expect(r.names()).toEqual(['ACQUIRE', 'LATEST']);
    stop.abort();
    await expect(following).rejects.toThrow();
    await cluster.close();

    // A leader that joins gets the kept body before its own first request.
    const r2 = scriptedRedis(leading({ ACQUIRE: acquires([1, -2, '105', LEASE]), LATEST: () => ['105', '{"n":7}'] }));
    const leader = createCluster({ redis: r2.redis, prefix: 'p:', lease: LEASE });
    const first: unknown[] = [];
    const waits: PollEvent[] = [];
    const env = { now: () => 9000 };
    await poll<{ n: number }>(`${server.url}/job`, { interval: 50, env, use: [leader.share()], onUpdate: (b) => void first.push(b), onEvent: (e) => void (e.type === 'wait' && waits.push(e)), isDone: (b) => b.n === 1 });
    expect(first).toEqual([{ n: 7 }, { n: 1 }]);
    // Its first request one interval after the kept body, as if it had heard it.
    expect(waits).toEqual([{ type: 'wait', delay: 50, at: 9050 }]);
    expect(r2.names().slice(0, 3)).toEqual(['ACQUIRE', 'LATEST', 'PUBLISH']);
    await leader.close();

    // A kept body that is not JSON, or not newer, is not delivered.
    for (const kept of [['105', '{"n":'], ['0', '{"n":7}']]) {
      const r3 = scriptedRedis(leading({ ACQUIRE: acquires([1, -2, '105', LEASE]), LATEST: () => kept }));
      const c = createCluster({ redis: r3.redis, prefix: 'p:', lease: LEASE });
      const heard: unknown[] = [];
      await poll<{ n: number }>(`${server.url}/job`, { interval: 50, use: [c.share()], onUpdate: (b) => void heard.push(b), isDone: () => true });
      // Only its own first body (the server's count so far), nothing from Redis.
      expect(heard).toEqual([{ n: server.requests.length }]);
      await c.close();
    }
  });
});

describe('cluster.share(): a loop that ended (issue 38)', () => {
  it("a follower catches up on its loop's last body when the loop ended after it started, not when it ended before; maxAge lets an ended loop's body in", async () => {
    server = await counting();
    const follow = async (first: unknown[], second: unknown[] | undefined, latest: unknown[], maxAge?: number): Promise<{ got: unknown[]; names: string[] }> => {
      const r = scriptedRedis(leading({ ACQUIRE: acquires(first, ...(second ? [second] : [])), LATEST: () => latest }));
      const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
      const got: unknown[] = [];
      const stop = new AbortController();
      const following = poll(`${server!.url}/job`, { use: [cluster.share(maxAge === undefined ? {} : { maxAge })], signal: stop.signal, onUpdate: (b) => void got.push(b), isDone: () => false });
      await until(() => r.sent.length >= 1, 'the first check', 2000);
      if (second) {
        // The release of its loop's leader: it checks again.
        r.publish(r.sent[0]!.keys[0]!.slice(0, -':lease'.length), 'r');
        await until(() => r.names().filter((n) => n === 'ACQUIRE').length >= 2, 'the second check', 2000);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      stop.abort();
      await expect(following).rejects.toThrow();
      await cluster.close();
      return { got, names: r.names() };
    };
    // Started at 1000 (Redis's time, µs); its loop ended at 2000, with body 105 it had missed: delivered.
    expect((await follow([0, -2, '0', LEASE, '0', '1000'], [0, -2, '105', LEASE, '2000', '2500'], ['105', '{"n":7}', '2000', '2600'])).got).toEqual([{ n: 7 }]);
    // A loop that ended when it started (at 1000), or before: not its loop, nothing asked.
    for (const ended of ['1000', '999']) {
      const { got, names } = await follow([0, -2, '105', LEASE, ended, '1000'], undefined, ['105', '{"n":7}', ended, '1000']);
      expect([got, names]).toEqual([[], ['ACQUIRE']]);
    }
    // LATEST says the loop ended before it started (ACQUIRE said it ran): not delivered.
    expect((await follow([0, -2, '105', LEASE, '0', '1000'], undefined, ['105', '{"n":7}', '999', '1000'])).got).toEqual([]);
    // maxAge: 1 ms = 1000 µs; the body polled at 105, now 1105: just within it; at 1106, not.
    expect((await follow([0, -2, '105', LEASE, '999', '1105'], undefined, ['105', '{"n":7}', '999', '1105'], 1)).got).toEqual([{ n: 7 }]);
    expect((await follow([0, -2, '105', LEASE, '999', '1106'], undefined, ['105', '{"n":7}', '999', '1106'], 1)).got).toEqual([]);
  });

  it('maxAge and key are checked: a non-negative finite number; a non-empty string or a function', () => {
    const cluster = createCluster({ redis: scriptedRedis(leading()).redis });
    expect(() => cluster.share({ maxAge: -1 })).toThrow(new TypeError('Expected `maxAge` to be a finite number >= 0'));
    expect(() => cluster.share({ maxAge: Infinity })).toThrow(new TypeError('Expected `maxAge` to be a finite number >= 0'));
    expect(() => cluster.share({ maxAge: 0 })).not.toThrow();
    expect(() => cluster.share({ key: () => 'tenant 1' })).not.toThrow();
    expect(() => cluster.share({ key: '' })).toThrow(new TypeError('Expected `key` to be a non-empty string or a function'));
  });

  it('two polls shared within this process only (each with a fetch of its own) are two jobs: each gets its own answers', async () => {
    server = await startServer((req, res) => sendJson(res, 200, { path: req.url }));
    const cluster = createCluster({ redis: scriptedRedis(leading()).redis, prefix: 'p:', lease: LEASE });
    const own: typeof fetch = (input, init) => globalThis.fetch(input, init);
    const [a, b] = await Promise.all(
      ['/a', '/b'].map((path) => poll<{ path: string }>(`${server!.url}${path}`, { fetch: own, interval: 50, use: [cluster.share()], isDone: () => true })),
    );
    expect([a!.path, b!.path]).toEqual(['/a', '/b']);
    await cluster.close();
  });
});

describe('cluster.share(): Redis failing, a lease lost, leaving', () => {
  it('Redis failing: it polls alone at once (shown as leader), publishing nothing; back, it follows the leader, not catching up on a body older than its own', async () => {
    server = await counting();
    let down = true;
    const r = scriptedRedis(leading({ ACQUIRE: () => (down ? new Error('ERR down') : [0, -2, '200', LEASE]), LATEST: () => ['200', '{"n":0}'] }));
    const statuses: string[] = [];
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE, recheck: 60_000, onStatus: (s) => statuses.push(s.type) });
    const events: PollEvent[] = [];
    const got: number[] = [];
    const stop = new AbortController();
    const polling = poll<{ n: number }>(`${server.url}/job`, { interval: 30, use: [cluster.share()], signal: stop.signal, onEvent: (e) => void events.push(e), onUpdate: (b) => void got.push(b.n), isDone: () => false });
    await until(() => got.length >= 3, 'three bodies alone', 2000);
    expect(r.names()).toEqual(['ACQUIRE']);
    // At once: no wait before its first request.
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(['request', 'share']);
    down = false;
    r.watch(true);
    await until(() => roles(events).length === 2, 'following', 2000);
    // A request already out when it stepped down may still be answered (its body is not delivered); none after it:
    // no request is sent after its `follower` event, and the server sees none that was not sent. (Counted by the
    // server alone, from 100 ms on, a request out at the step-down may land after the count on a busy machine.)
    await new Promise((resolve) => setTimeout(resolve, 250));
    const steppedDown = events.findIndex((e) => e.type === 'share' && e.role === 'follower');
    expect(events.slice(steppedDown).filter((e) => e.type === 'request')).toEqual([]);
    expect(server.requests.length).toBeLessThanOrEqual(events.filter((e) => e.type === 'request').length);
    expect(roles(events)).toEqual(['leader', 'follower']);
    // Once for the ready connection, once more for the status it brought back; no LATEST.
    expect(r.names()).toEqual(['ACQUIRE', 'ACQUIRE', 'ACQUIRE']);
    expect(got.slice(0, 3)).toEqual([1, 2, 3]);
    expect(statuses).toEqual(['local', 'connected']);
    // Stepping down aborted its own loop, which failed no caller: they end with their own reason.
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    await cluster.close();
  });

  it('a lease found lost when publishing (PUBLISH replies 0): it checks at once, and follows', async () => {
    server = await counting();
    const r = scriptedRedis(leading({ ACQUIRE: acquires([1, -2, '0', LEASE]), PUBLISH: () => 0 }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const events: PollEvent[] = [];
    const stop = new AbortController();
    const polling = poll(`${server.url}/job`, { interval: 30, use: [cluster.share()], signal: stop.signal, onEvent: (e) => void events.push(e), isDone: () => false });
    await until(() => roles(events).length === 2, 'following', 2000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(roles(events)).toEqual(['leader', 'follower']);
    expect(server.requests).toHaveLength(1);
    // The wait its loop had started when the lease was found lost is announced too (WAITING checks the lease: no harm).
    expect(r.names()).toEqual(['ACQUIRE', 'PUBLISH', 'ACQUIRE', 'WAITING']);
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    // A follower that leaves releases nothing.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(r.names()).toEqual(['ACQUIRE', 'PUBLISH', 'ACQUIRE', 'WAITING']);
    await cluster.close();
  });

  it('a caller that leaves while the first ACQUIRE is out: a lease it got is released at once (nothing polled: no minimum next); nothing else is sent', async () => {
    server = await counting();
    let answer: (reply: unknown) => void = () => undefined;
    const r = scriptedRedis(leading({ ACQUIRE: () => new Promise((resolve) => (answer = resolve)) }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const stop = new AbortController();
    const polling = poll(`${server.url}/job`, { use: [cluster.share()], signal: stop.signal, isDone: () => false });
    await until(() => r.sent.length === 1, 'the ACQUIRE', 2000);
    stop.abort();
    await expect(polling).rejects.toThrow();
    answer([1, -2, '0', LEASE]);
    await until(() => r.sent.length === 2, 'the RELEASE', 2000);
    const [lease, next, last] = r.sent[0]!.keys;
    expect(r.sent[1]).toEqual({ script: 'RELEASE', keys: [lease, next, last], args: [r.sent[0]!.args[0], '0', lease!.slice(0, -':lease'.length)] });
    expect(last).toBe(`${lease!.slice(0, -':lease'.length)}:last`);
    expect(server.requests).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.names()).toEqual(['ACQUIRE', 'RELEASE']);

    // A lease it did not get is not released.
    const stop2 = new AbortController();
    const r2 = scriptedRedis(leading({ ACQUIRE: () => new Promise((resolve) => (answer = resolve)) }));
    const other = createCluster({ redis: r2.redis, prefix: 'p:', lease: LEASE });
    const second = poll(`${server.url}/job`, { use: [other.share()], signal: stop2.signal, isDone: () => false });
    await until(() => r2.sent.length === 1, 'the ACQUIRE', 2000);
    stop2.abort();
    await expect(second).rejects.toThrow();
    // (Held by another, with a body kept: nothing to catch up on for nobody.)
    answer([0, -2, '105', LEASE]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r2.names()).toEqual(['ACQUIRE']);
    await other.close();

    // Nor, when Redis failed, does it start polling alone for nobody.
    const stop3 = new AbortController();
    const r3 = scriptedRedis(leading({ ACQUIRE: () => new Promise((resolve) => (answer = resolve)) }));
    const third = createCluster({ redis: r3.redis, prefix: 'p:', lease: LEASE });
    const polling3 = poll(`${server.url}/job`, { use: [third.share()], signal: stop3.signal, isDone: () => false });
    await until(() => r3.sent.length === 1, 'the ACQUIRE', 2000);
    stop3.abort();
    await expect(polling3).rejects.toThrow();
    answer(new Error('ERR down'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r3.names()).toEqual(['ACQUIRE']);
    expect(server.requests).toHaveLength(0);
    await third.close();
    await cluster.close();
  });

  it('publish: false: the leader still takes the lease and announces its waits, but publishes no body', async () => {
    server = await counting();
    const r = scriptedRedis(leading());
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    await poll<{ n: number }>(`${server.url}/job`, { interval: 20, use: [cluster.share({ publish: false })], env: { now: () => 0 }, isDone: (b) => b.n === 2 });
    await until(() => r.names().includes('RELEASE'), 'the release', 2000);
    expect(r.names()).toEqual(['ACQUIRE', 'WAITING', 'RELEASE']);
    expect(r.sent[1]!.args[1]).toBe('20');
    await cluster.close();
  });
});

describe('cluster.share(): checks, messages while leading, releasing', () => {
  it('a follower checks again a third of the lease later, or 5 ms after the lease Redis says ends sooner', async () => {
    server = await counting();
    const armed: number[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => (armed.push(ms ?? 0), real(callback, ms))) as typeof setTimeout);
    const r = scriptedRedis(leading({ ACQUIRE: acquires([0, -2, '0', LEASE], [0, -2, '0', 40], [0, -2, '0', -2]) }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE, deadline: 999 });
    const stop = new AbortController();
    const polling = poll(`${server.url}/job`, { use: [cluster.share()], signal: stop.signal, isDone: () => false });
    await until(() => r.sent.length === 1, 'the first check', 2000);
    const channel = r.sent[0]!.keys[0]!.slice(0, -':lease'.length);
    await new Promise((resolve) => real(resolve, 20));
    expect(armed.filter((ms) => ms !== 999 && ms !== 20)).toEqual([10_000]);
    armed.length = 0;
    r.publish(channel, 'r');
    await until(() => r.sent.length === 2, 'the second check', 2000);
    await new Promise((resolve) => real(resolve, 20));
    // (The check it arms may already have run, arming the next.)
    expect(armed.filter((ms) => ms !== 999 && ms !== 20)[0]).toBe(45);
    await until(() => r.sent.length === 3, 'the check 45 ms later', 2000);
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    expect(server.requests).toHaveLength(0);
    await cluster.close();
  });

  it('a leader renews its lease every third of it, with its own token: the cadence the lease is sized for', async () => {
    server = await counting();
    const armed: number[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => (armed.push(ms ?? 0), real(callback, ms))) as typeof setTimeout);
    const r = scriptedRedis(leading({ ACQUIRE: () => [1, -2, '0', 600] }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: 600, deadline: 199 });
    const stop = new AbortController();
    const events: PollEvent[] = [];
    const polling = poll(`${server.url}/job`, { interval: 60_000, use: [cluster.share()], signal: stop.signal, isDone: () => false, onEvent: (e) => void events.push(e) });
    await until(() => r.names().filter((n) => n === 'ACQUIRE').length >= 4, 'three renewals', 10_000);
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    const acquires = r.sent.filter((s) => s.script === 'ACQUIRE');
    // Each renewal takes the lease for its full length again, with the token of the first.
    expect(new Set(acquires.map((s) => s.args.join(' '))).size).toBe(1);
    expect(acquires[0]!.args[1]).toBe('600');
    // The checks it armed: a third of the lease each, one after each renewal.
    expect(armed.filter((ms) => ms === 200).length).toBeGreaterThanOrEqual(3);
    expect(roles(events)).toEqual(['leader']);
    expect(server.requests).toHaveLength(1);
    await cluster.close();
  });

  it('a body heard before the first check answers makes it a follower at once; the leader ignores bodies and waits of others, a release makes it check', async () => {
    server = await counting();
    let answer: (reply: unknown) => void = () => undefined;
    const first = new Promise((resolve) => (answer = resolve));
    let calls = 0;
    const r = scriptedRedis(leading({ ACQUIRE: () => ((calls += 1), calls === 1 ? first : [1, -2, '105', LEASE]) }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const events: PollEvent[] = [];
    const got: unknown[] = [];
    const t = 1000;
    const stop = new AbortController();
    const polling = poll<{ n: number }>(`${server.url}/job`, { interval: 20, use: [cluster.share()], env: { now: () => t }, signal: stop.signal, onEvent: (e) => void events.push(e), onUpdate: (b) => void got.push(b), isDone: () => false });
    await until(() => r.sent.length === 1, 'the first check', 2000);
    const channel = r.sent[0]!.keys[0]!.slice(0, -':lease'.length);
    r.publish(channel, 'b105\n{"n":7}');
    expect(roles(events)).toEqual(['follower']);
    answer([0, -2, '105', LEASE]);
    r.publish(channel, 'r');
    await until(() => got.length === 3, 'two bodies as leader', 2000);
    // Leading: another's body and wait change nothing; a release message makes it check (and keep the lease, saying nothing new).
    r.publish(channel, 'b999\n{"n":99}');
    r.publish(channel, 'w5000');
    r.publish(channel, 'r');
    await until(() => got.length === 5, 'two more bodies', 2000);
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    expect(got).toEqual([{ n: 7 }, { n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(roles(events)).toEqual(['follower', 'leader']);
    const waits = events.flatMap((e) => (e.type === 'wait' ? [e.delay] : []));
    expect(waits.length).toBeGreaterThanOrEqual(3);
    expect(waits.filter((delay) => delay !== 20)).toEqual([]);
    expect(r.names().filter((name) => name === 'ACQUIRE')).toHaveLength(3);
    await cluster.close();
  });

  it('a leader that stepped down after publishing knows its own stamp: it does not catch up on the body it published', async () => {
    server = await counting();
    const publishes = ['105', 0];
    const r = scriptedRedis(leading({ ACQUIRE: acquires([1, -2, '0', LEASE], [0, -2, '105', LEASE]), PUBLISH: () => publishes.shift() ?? 0 }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const events: PollEvent[] = [];
    const stop = new AbortController();
    const polling = poll(`${server.url}/job`, { interval: 20, use: [cluster.share()], signal: stop.signal, onEvent: (e) => void events.push(e), isDone: () => false });
    await until(() => roles(events).length === 2, 'following', 2000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    expect(r.names()).toEqual(['ACQUIRE', 'PUBLISH', 'WAITING', 'PUBLISH', 'ACQUIRE', 'WAITING']);
    await cluster.close();
  });

  it('polling alone (Redis failing), a caller that leaves still frees the lease, with no minimum next once an interval has passed', async () => {
    // Slow answers: a second loop, if one were started, would have its request out beside the first.
    let n = 0;
    server = await startServer(async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      sendJson(res, 200, { n: ++n });
    });
    let t = 1000;
    const r = scriptedRedis(leading({ ACQUIRE: () => new Error('ERR down') }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE, recheck: 0 });
    const stop = new AbortController();
    const polling = poll(`${server.url}/job`, { interval: 20, use: [cluster.share()], env: { now: () => t }, signal: stop.signal, isDone: () => false });
    await until(() => server!.requests.length >= 2, 'two requests alone', 2000);
    t += 1000;
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    await until(() => r.names().includes('RELEASE'), 'the release', 2000);
    expect(r.names()).toEqual(['ACQUIRE', 'ACQUIRE', 'RELEASE']);
    expect(r.sent[2]!.args[1]).toBe('0');
    expect(server.inFlight.max).toBe(1);
    await cluster.close();
  });
});

describe('cluster.share(): the takeover wait, clamped', () => {
  it('never longer than one interval after the last body heard (a clock that went back), none once the announced wait is past', async () => {
    server = await counting();
    for (const [messages, move, takeover, wait] of [
      [['b105\n{"n":7}'], -1000, [1, -2, '0', LEASE], { type: 'wait', delay: 60, at: 4060 }],
      [['w10'], 50, [1, -2, '0', LEASE], undefined],
      // A wait of 0 is one: the next request is due at once.
      [['w50', 'w0'], 20, [1, -2, '0', LEASE], undefined],
      // Redis has no next request due (0 ms left): the last body heard decides.
      [['b105\n{"n":7}'], 15, [1, 0, '0', LEASE], { type: 'wait', delay: 45, at: 5060 }],
    ] as const) {
      const r = scriptedRedis(leading({ ACQUIRE: acquires([0, -2, '0', LEASE], takeover) }));
      const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
      let t = 5000;
      const events: PollEvent[] = [];
      const done = poll<{ n: number }>(`${server.url}/job`, { interval: 60, use: [cluster.share()], env: { now: () => t }, onEvent: (e) => void events.push(e), isDone: (b) => b.n !== 7 });
      await until(() => roles(events).length === 1, 'the role', 2000);
      const channel = r.sent[0]!.keys[0]!.slice(0, -':lease'.length);
      for (const message of messages) r.publish(channel, message);
      t += move;
      r.publish(channel, 'r');
      await done;
      expect(events.find((e) => e.type === 'wait')).toEqual(wait);
      await cluster.close();
    }
  });
});

describe('cluster.share(): one check at a time, and what leaving stops', () => {
  it('a check asked for while one is out runs after it, once (never side by side)', async () => {
    server = await counting();
    let answer: (reply: unknown) => void = () => undefined;
    let calls = 0;
    const r = scriptedRedis(leading({ ACQUIRE: () => ((calls += 1), calls === 1 ? new Promise((resolve) => (answer = resolve)) : [0, -2, '0', LEASE]) }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const stop = new AbortController();
    const polling = poll(`${server.url}/job`, { use: [cluster.share()], signal: stop.signal, isDone: () => false });
    await until(() => r.sent.length === 1, 'the first check', 2000);
    const channel = r.sent[0]!.keys[0]!.slice(0, -':lease'.length);
    r.publish(channel, 'r');
    r.publish(channel, 'r');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(r.names()).toEqual(['ACQUIRE']);
    answer([0, -2, '0', LEASE]);
    await until(() => r.sent.length === 2, 'the check asked for', 2000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(r.names()).toEqual(['ACQUIRE', 'ACQUIRE']);
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    await cluster.close();
  });

  it('a leader whose last caller left while its PUBLISH was out releases, and does not check again when the PUBLISH says the lease was lost', async () => {
    server = await counting();
    let answer: (reply: unknown) => void = () => undefined;
    const r = scriptedRedis(leading({ PUBLISH: () => new Promise((resolve) => (answer = resolve)) }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const stop = new AbortController();
    const polling = poll(`${server.url}/job`, { use: [cluster.share()], signal: stop.signal, isDone: () => false });
    await until(() => r.names().includes('PUBLISH'), 'the PUBLISH', 2000);
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    await until(() => r.names().includes('RELEASE'), 'the release', 2000);
    answer(0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(r.names()).toEqual(['ACQUIRE', 'PUBLISH', 'RELEASE']);
    await cluster.close();
  });

  it('a caller that leaves before its job is even named (the hash is async) sends nothing to Redis', async () => {
    server = await counting();
    const r = scriptedRedis(leading());
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const stop = new AbortController();
    const polling = poll(`${server.url}/job`, { use: [cluster.share()], signal: stop.signal, isDone: () => false });
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(r.sent).toEqual([]);
    // Nor is anything left listening on the job's channel (a share started for nobody would never leave).
    const { channel } = jobKeys('p:', await sha256Hex(shareKey(requestFactory(`${server.url}/job`, {}))!));
    expect(r.listeners(channel)).toBe(0);
    expect(server.requests).toHaveLength(0);
    await cluster.close();
  });

  it('a feature after cluster.share() whose run throws at once rejects the callers with its error, as without the share', async () => {
    server = await counting();
    const r = scriptedRedis(leading());
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const broken: PollFeature = {
      run: () => {
        throw new Error('feature broke');
      },
    };
    await expect(poll(`${server.url}/job`, { use: [broken], isDone: () => false })).rejects.toThrow(new Error('feature broke'));
    // Without a key, a feature after the share that runs the loop keeps the poll in this process: it still rejects.
    await expect(poll(`${server.url}/job`, { use: [cluster.share(), broken], isDone: () => false })).rejects.toThrow(new Error('feature broke'));
    expect(r.names()).toEqual([]);
    // With one, the poll is one job across processes (a lease in Redis).
    await expect(poll(`${server.url}/job`, { use: [cluster.share({ key: 'broken is the same everywhere' }), broken], isDone: () => false })).rejects.toThrow(
      new Error('feature broke'),
    );
    // The lease it took is given back once its only caller is settled.
    await until(() => r.names().includes('RELEASE'), 'the release', 2000);
    expect(r.names()).toEqual(['ACQUIRE', 'RELEASE']);
    expect(server.requests).toHaveLength(0);
    await cluster.close();
  });

  it('a leader whose last caller leaves between an answer and its hand-over publishes nothing after its release', async () => {
    server = await counting();
    const r = scriptedRedis(leading());
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    const stop = new AbortController();
    // A feature's answer hook runs after the request's answer and before the body is handed to the
    // sink, in the same task: the caller leaving there is the one moment the loop is no longer this
    // process's while a body of it is still on its way to be published.
    const leaveOnSecond: PollFeature = { attach: () => ({ answer: (a) => void ((a.data as { n: number } | undefined)?.n === 2 && stop.abort(new Error('caller done'))) }) };
    const polling = poll<{ n: number }>(`${server.url}/job`, { interval: 5, use: [cluster.share(), leaveOnSecond], signal: stop.signal, isDone: () => false });
    await expect(polling).rejects.toThrow(new Error('caller done'));
    await until(() => r.names().includes('RELEASE'), 'the release', 2000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(server.requests).toHaveLength(2);
    // One PUBLISH of the first body (and none of the second), before the release: nothing takes the lease back.
    expect(r.names().filter((name) => name === 'PUBLISH' || name === 'RELEASE')).toEqual(['PUBLISH', 'RELEASE']);
    await cluster.close();
  });

  it('a leader whose last caller left during its catch-up frees the lease it got, sends no request, and arms no further check', async () => {
    server = await counting();
    const armed: number[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => (armed.push(ms ?? 0), real(callback, ms))) as typeof setTimeout);
    let answer: (reply: unknown) => void = () => undefined;
    const r = scriptedRedis(leading({ ACQUIRE: acquires([1, -2, '105', LEASE]), LATEST: () => new Promise((resolve) => (answer = resolve)) }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE, deadline: 999 });
    const stop = new AbortController();
    const polling = poll(`${server.url}/job`, { use: [cluster.share()], signal: stop.signal, isDone: () => false });
    await until(() => r.names().includes('LATEST'), 'the catch-up', 2000);
    const [lease, next, last] = r.sent[0]!.keys;
    expect(r.sent[1]).toEqual({ script: 'LATEST', keys: [last], args: [] });
    stop.abort(new Error('caller done'));
    await expect(polling).rejects.toThrow(new Error('caller done'));
    armed.length = 0;
    answer(['105', '{"n":7}']);
    await until(() => r.names().includes('RELEASE'), 'the release', 2000);
    await new Promise((resolve) => real(resolve, 30));
    expect(r.sent.slice(2)).toEqual([{ script: 'RELEASE', keys: [lease, next, last], args: [r.sent[0]!.args[0], '0', lease!.slice(0, -':lease'.length)] }]);
    expect(server.requests).toHaveLength(0);
    expect(armed.filter((ms) => ms !== 999 && ms !== 30 && ms !== 20)).toEqual([]);
    await cluster.close();
  });

  it('a short ACQUIRE reply: no next request (no wait before the first), no time left on the lease (a follower checks a third of the lease later)', async () => {
    server = await counting();
    const armed: number[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => (armed.push(ms ?? 0), real(callback, ms))) as typeof setTimeout);
    const events: PollEvent[] = [];
    const r = scriptedRedis(leading({ ACQUIRE: acquires([1]) }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE, deadline: 999 });
    await poll(`${server.url}/job`, { use: [cluster.share()], onEvent: (e) => void events.push(e), isDone: () => true });
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(['request', 'share']);
    await cluster.close();

    for (const reply of [[0], [0, -2, '0', 0]]) {
      const r2 = scriptedRedis(leading({ ACQUIRE: acquires(reply) }));
      const other = createCluster({ redis: r2.redis, prefix: 'p:', lease: LEASE, deadline: 999 });
      const stop = new AbortController();
      armed.length = 0;
      const polling = poll(`${server.url}/job`, { use: [other.share()], signal: stop.signal, isDone: () => false });
      await until(() => r2.sent.length === 1, 'the check', 2000);
      await new Promise((resolve) => real(resolve, 20));
      expect(armed.filter((ms) => ms !== 999 && ms !== 20)).toEqual([10_000]);
      stop.abort(new Error('caller done'));
      await expect(polling).rejects.toThrow(new Error('caller done'));
      await other.close();
    }
  });

  it("the release keeps the next request one interval after the leader's last request, not after its last event", async () => {
    server = await counting();
    const r = scriptedRedis(leading());
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    let t = 1000;
    const stop = new AbortController();
    const polling = poll(`${server.url}/job`, {
      interval: 40,
      use: [cluster.share()],
      env: { now: () => t },
      signal: stop.signal,
      onUpdate: () => void (t += 15),
      onEvent: (e) => void (e.type === 'wait' && stop.abort(new Error('caller done'))),
      isDone: () => false,
    });
    await expect(polling).rejects.toThrow(new Error('caller done'));
    await until(() => r.names().includes('RELEASE'), 'the release', 2000);
    expect(r.sent.find((s) => s.script === 'RELEASE')!.args[1]).toBe('25');
    await cluster.close();
  });

  it('a PUBLISH that fails is no failure of the poll: the leader delivers the body and goes on', async () => {
    server = await counting();
    let fails = 1;
    const r = scriptedRedis(leading({ PUBLISH: () => (fails-- > 0 ? new Error('ERR busy') : '200') }));
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE, recheck: 0 });
    const got: number[] = [];
    const body = await poll<{ n: number }>(`${server.url}/job`, { interval: 20, use: [cluster.share()], onUpdate: (b) => void got.push(b.n), isDone: (b) => b.n >= 2 });
    expect(body).toEqual({ n: 2 });
    expect(got).toEqual([1, 2]);
    await cluster.close();
  });

  it('a hash that fails (the platform has no SHA-256) rejects the callers with its error', async () => {
    server = await counting();
    const broken = new Error('no digest');
    vi.spyOn(crypto.subtle, 'digest').mockRejectedValueOnce(broken);
    const r = scriptedRedis(leading());
    const cluster = createCluster({ redis: r.redis, prefix: 'p:', lease: LEASE });
    await expect(poll(`${server.url}/job`, { use: [cluster.share()], isDone: () => true })).rejects.toBe(broken);
    expect(r.sent).toEqual([]);
    expect(server.requests).toHaveLength(0);
    await cluster.close();
  });
});
