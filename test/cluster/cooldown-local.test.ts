import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { poll, type PollEvent } from '../../src/index.js';
import { createCluster, type ClusterRedis } from '../../src/cluster/index.js';
import { CooldownBoard, Honoured } from '../../src/cluster/cooldown-board.js';
import { COOL, COOLDOWNS } from '../../src/cluster/scripts.js';
import { FAULT, type ClusterStore } from '../../src/cluster/store.js';
import { recordingEnv } from '../helpers/env.js';

// The cluster cooldown's board and poll feature over a scripted store (no
// server: every COOLDOWNS reply is the test's, so which cooldown a reader
// picks, and what it sends, is exact). cooldown.test.ts runs it on a real Redis.

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const URL_A = new URL('https://api.example/v1/jobs?page=2');
const ORIGIN_KEY = 'p:cool:{https://api.example}:503';
const ROUTE_KEY = `p:cool:{https://api.example}:429:${createHash('sha256').update('/v1/jobs').digest('hex')}`;
/** An origin of `'null'`: a URL no cooldown can be keyed by. */
const OPAQUE = new URL('data:text/plain,hello');
const NO_COOLDOWNS = ['-2', '', '-2', ''];

/** A ClusterStore whose COOLDOWNS replies are `reply`'s (COOL replies 1), recording every script run. */
function scriptedStore(reply: () => unknown = () => NO_COOLDOWNS) {
  const runs: Array<{ script: string; keys: string[]; args: Array<string | number> }> = [];
  const store: ClusterStore = {
    run: async (script, keys, args) => {
      runs.push({ script: script === COOLDOWNS ? 'COOLDOWNS' : script === COOL ? 'COOL' : 'other', keys: [...keys], args: [...args] });
      return script === COOLDOWNS ? reply() : 1;
    },
    subscribe: () => () => undefined,
    onChange: () => () => undefined,
    connected: true,
    close: async () => undefined,
  };
  return { store, runs };
}

/** The ids of the cooldowns announced so far, in order. */
const announced = (runs: ReturnType<typeof scriptedStore>['runs']): string[] => runs.filter((r) => r.script === 'COOL').map((r) => String(r.args[1]));

const retryAfter = (seconds: string): Headers => new Headers({ 'retry-after': seconds });

/** Counts the SHA-256 digests taken (a route's key is one), from now on. */
function countDigests(): () => number {
  const digest = vi.spyOn(crypto.subtle, 'digest');
  return () => digest.mock.calls.filter(([algorithm]) => algorithm === 'SHA-256').length;
}

describe('Honoured', () => {
  it('keeps the last 8 ids: the 9th pushes out the 1st', () => {
    const honoured = new Honoured();
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    for (const id of ids.slice(0, 8)) honoured.add(id);
    expect(ids.map((id) => honoured.has(id))).toEqual([true, true, true, true, true, true, true, true, false]);
    honoured.add('i');
    expect(ids.map((id) => honoured.has(id))).toEqual([false, true, true, true, true, true, true, true, true]);
  });
});

describe('CooldownBoard.look()', () => {
  it("picks the longest cooldown (the origin's on a tie) with an id, of the first two pairs of the reply; anything else is clear", async () => {
    const cases: Array<[unknown, { ms: number; id: string } | undefined]> = [
      [NO_COOLDOWNS, undefined],
      [['900', 'a', '100', 'b'], { ms: 900, id: 'a' }],
      [['100', 'a', '900', 'b'], { ms: 900, id: 'b' }],
      [['500', 'a', '500', 'b'], { ms: 500, id: 'a' }],
      [['-1', 'a', '-2', ''], undefined],
      // Only the origin's and the route's pairs count.
      [['100', 'a', '200', 'b', '900', 'c'], { ms: 200, id: 'b' }],
      // A cooldown without an id (an empty one, or none) is no cooldown.
      [['1000', '', '-2', ''], undefined],
      [['1000'], undefined],
      // Not an array: Redis failed, or an adapter answered something else.
      [FAULT, undefined],
      ['9x', undefined],
      [{ 0: '1000', 1: 'a' }, undefined],
    ];
    const got: unknown[] = [];
    let reply: unknown;
    const { store, runs } = scriptedStore(() => reply);
    const board = new CooldownBoard(store, 'p:');
    for ([reply] of cases) got.push(await board.look(URL_A, new Honoured()));
    expect(got).toEqual(cases.map(([, expected]) => expected));
    expect(runs).toEqual(cases.map(() => ({ script: 'COOLDOWNS', keys: [ORIGIN_KEY, ROUTE_KEY], args: [] })));
  });

  it('skips the cooldowns the caller has waited out, and those this process announced', async () => {
    let reply = ['900', 'a', '100', 'b'];
    const { store, runs } = scriptedStore(() => reply);
    const board = new CooldownBoard(store, 'p:');
    const honoured = new Honoured();
    honoured.add('a');
    expect(await board.look(URL_A, honoured)).toEqual({ ms: 100, id: 'b' });
    await board.note(URL_A, 503, retryAfter('2'), Date.now());
    const [own] = announced(runs);
    reply = ['2000', own!, '100', 'b'];
    expect(await board.look(URL_A, new Honoured())).toEqual({ ms: 100, id: 'b' });
    expect(runs[1]).toEqual({ script: 'COOL', keys: [ORIGIN_KEY], args: [2000, own] });
  });

  it("asks nothing of a URL whose origin is 'null', and hashes nothing ahead for it", async () => {
    const digests = countDigests();
    const { store, runs } = scriptedStore(() => ['900', 'a', '100', 'b']);
    const board = new CooldownBoard(store, 'p:');
    board.prepare(OPAQUE);
    expect(digests()).toBe(0);
    expect(await board.look(OPAQUE, new Honoured())).toBeUndefined();
    expect(runs).toEqual([]);
    expect(digests()).toBe(0);
  });
});

describe("CooldownBoard's cache of keys", () => {
  it('hashes a route once, from prepare() on, and forgets every route when a 65th comes', async () => {
    const digests = countDigests();
    const { store } = scriptedStore();
    const board = new CooldownBoard(store, 'p:');
    board.prepare(URL_A);
    // At once: the hash is under way before the first request.
    expect(digests()).toBe(1);
    await board.look(URL_A, new Honoured());
    await board.look(new URL('https://api.example/v1/jobs?page=3'), new Honoured());
    await board.note(URL_A, 429, retryAfter('1'), Date.now());
    expect(digests()).toBe(1);
    await board.look(new URL('https://api.example/b'), new Honoured());
    await board.look(URL_A, new Honoured());
    expect(digests()).toBe(2);
    for (let i = 3; i <= 64; i += 1) await board.look(new URL(`https://api.example/r${i}`), new Honoured());
    expect(digests()).toBe(64);
    await board.look(new URL('https://api.example/b'), new Honoured());
    expect(digests()).toBe(64);
    // The 65th route: the cache is cleared, so the first one is hashed anew.
    await board.look(new URL('https://api.example/r65'), new Honoured());
    await board.look(URL_A, new Honoured());
    expect(digests()).toBe(66);
  });
});

describe('CooldownBoard.note()', () => {
  it("announces a 503's cooldown on the origin and a 429's on the route, ms rounded up and capped at a day", async () => {
    const { store, runs } = scriptedStore();
    const board = new CooldownBoard(store, 'p:');
    await board.note(URL_A, 503, retryAfter('3'), Date.now());
    await board.note(URL_A, 429, retryAfter('999999'), Date.now());
    const ids = announced(runs);
    expect(runs).toEqual([
      { script: 'COOL', keys: [ORIGIN_KEY], args: [3000, ids[0]] },
      { script: 'COOL', keys: [ROUTE_KEY], args: [86_400_000, ids[1]] },
    ]);
  });

  it("announces nothing for another status, a wait of 0 or none, or a URL whose origin is 'null'", async () => {
    const { store, runs } = scriptedStore();
    const board = new CooldownBoard(store, 'p:');
    await board.note(URL_A, 500, retryAfter('5'), Date.now());
    await board.note(URL_A, 200, retryAfter('5'), Date.now());
    await board.note(URL_A, 503, retryAfter('0'), Date.now());
    await board.note(URL_A, 503, new Headers(), Date.now());
    await board.note(OPAQUE, 503, retryAfter('5'), Date.now());
    await board.note(OPAQUE, 429, retryAfter('5'), Date.now());
    expect(runs).toEqual([]);
  });

  it('sweeps the record of its own cooldowns above 64, of those ended by the local clock (one ending exactly now included)', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 });
    const start = Date.now();
    let reply: string[] = NO_COOLDOWNS;
    const { store, runs } = scriptedStore(() => reply);
    const board = new CooldownBoard(store, 'p:');
    // The first ends in 1 s, the next 62 in a minute.
    await board.note(URL_A, 503, retryAfter('1'), start);
    for (let i = 2; i <= 63; i += 1) await board.note(URL_A, 503, retryAfter('60'), start);
    vi.setSystemTime(start + 1000);
    // The 64th: not above 64 yet, so the first (ended now) is still its own.
    await board.note(URL_A, 503, retryAfter('60'), start + 1000);
    const ids = announced(runs);
    expect(ids).toHaveLength(64);
    expect(new Set(ids).size).toBe(64);
    reply = ['500', ids[1]!, '400', ids[0]!];
    expect(await board.look(URL_A, new Honoured())).toBeUndefined();
    // The 65th: the first is swept out (Redis still reporting it is another process's to it now); the second is not.
    await board.note(URL_A, 503, retryAfter('60'), start + 1000);
    expect(await board.look(URL_A, new Honoured())).toEqual({ ms: 400, id: ids[0] });
  });
});

describe('cluster.cooldown()', () => {
  /** A ClusterRedis that answers every script with `reply`, recording what was sent. */
  function scriptedRedis(reply: unknown) {
    const sent: string[][] = [];
    const redis: ClusterRedis = {
      send: async (args) => (sent.push([...args]), reply),
      subscribe: async () => undefined,
      unsubscribe: async () => undefined,
      close: async () => undefined,
    };
    return { redis, sent };
  }
  const ok = async (): Promise<Response> => Response.json({ ok: true });

  it("holds a poll for another process's cooldown: the event's delay (spread, random 0.5) and when it ends, by the loop's clock", async () => {
    const { redis } = scriptedRedis(['2000', 'theirs', '-2', '']);
    const cluster = createCluster({ redis, prefix: 'p:' });
    const { env, delays } = recordingEnv({ random: 0.5 });
    const start = env.now!();
    const events: PollEvent[] = [];
    await poll(URL_A, { use: [cluster.cooldown()], cooldown: false, fetch: ok, env, isDone: () => true, onEvent: (e) => events.push(e) });
    expect(events[0]).toEqual({ type: 'cooldown', delay: 2200, at: start + 2200, origin: 'https://api.example' });
    expect(events.map((e) => e.type)).toEqual(['cooldown', 'request', 'response']);
    expect(delays).toEqual([2200]);
  });

  it('leaves alone a loop whose URL does not parse (a Request-like input, a fetch of its own): nothing is asked of Redis', async () => {
    const { redis, sent } = scriptedRedis(['2000', 'theirs', '-2', '']);
    const cluster = createCluster({ redis, prefix: 'p:' });
    const requestLike = { url: 'jobs/42', method: 'GET', headers: new Headers(), body: null, signal: undefined, clone: () => requestLike };
    const fetched: unknown[] = [];
    const fetchOwn = async (input: unknown): Promise<Response> => (fetched.push(input), Response.json({ done: true }));
    const data = await poll(requestLike as unknown as Request, { use: [cluster.cooldown()], cooldown: false, fetch: fetchOwn as typeof fetch, isDone: () => true });
    expect(data).toEqual({ done: true });
    expect(fetched).toEqual([requestLike]);
    expect(sent).toEqual([]);
  });
});
