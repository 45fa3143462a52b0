import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { share, shareTabs } from '../../src/cooperate/index.js';
import { poll } from '../../src/index.js';
import { realTimersEnv } from '../helpers/env.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { slowRuns, watchUnhandled } from '../property/runs.js';
import { eventually, expectNothingLeft, fetchAgent, startRawServer, timersNow, type FetchDispatcher } from './raw-server.js';

// Issue 33, "trust nothing a server says": share() and shareTabs() never hand one caller an
// answer it could not have got itself. Generated pairs of callers of one URL that differ in one
// part of who is asking (Authorization, Cookie, their fetch wrapper, init.credentials, a
// dispatcher; or a `key` that vouches for their wrappers) or in nothing, plus at times a third
// that copies one of them, poll at once. A real server answers each request with who asked (the
// Authorization, Cookie, the signing wrapper's and the dispatcher's marks) and the request's
// number. Each caller must get only answers made for its own identity, callers the rule calls one
// poll must share one loop, and the server must see exactly one loop per identity.

type User = 'a' | 'b';
/** One of two equal copies of a user's wrapper: equal in effect, not by identity. */
type Instance = { user: User; copy: 0 | 1 };

interface Identity {
  authorization: User | undefined;
  cookie: User | undefined;
  /** A fetch wrapper that signs as `user` (`x-signed`). */
  signer: Instance | undefined;
  credentials: RequestCredentials | undefined;
  /** A dispatcher that marks its requests as `user`'s (`x-via`), as a client certificate would. */
  via: Instance | undefined;
  /** A `key` vouching for the wrapper and the dispatcher: the users they act for. */
  vouch: boolean;
}

type Part = 'authorization' | 'cookie' | 'fetch' | 'credentials' | 'dispatcher' | 'key' | 'nothing';
const PARTS: readonly Part[] = ['authorization', 'cookie', 'fetch', 'credentials', 'dispatcher', 'key', 'nothing'];

const USERS = [undefined, 'a', 'b'] as const;
const INSTANCES: ReadonlyArray<Instance | undefined> = [undefined, { user: 'a', copy: 0 }, { user: 'a', copy: 1 }, { user: 'b', copy: 0 }, { user: 'b', copy: 1 }];
const MODES: ReadonlyArray<RequestCredentials | undefined> = [undefined, 'same-origin', 'include', 'omit'];

const identityArb: fc.Arbitrary<Identity> = fc.record({
  authorization: fc.constantFrom(...USERS),
  cookie: fc.constantFrom(...USERS),
  signer: fc.constantFrom(...INSTANCES),
  credentials: fc.constantFrom(...MODES),
  via: fc.constantFrom(...INSTANCES),
  vouch: fc.boolean(),
});

/** `values` but `current`, the `pick`-th of them (cycling). */
const another = <T>(values: readonly T[], current: T, pick: number): T => {
  const others = values.filter((value) => JSON.stringify(value) !== JSON.stringify(current));
  return others[pick % others.length]!;
};

/** `base` with `part` changed to another value. */
function varied(base: Identity, part: Part, pick: number): Identity {
  switch (part) {
    case 'authorization':
      return { ...base, authorization: another(USERS, base.authorization, pick) };
    case 'cookie':
      return { ...base, cookie: another(USERS, base.cookie, pick) };
    case 'fetch':
      return { ...base, signer: another(INSTANCES, base.signer, pick) };
    case 'credentials':
      return { ...base, credentials: another(MODES, base.credentials, pick) };
    case 'dispatcher':
      return { ...base, via: another(INSTANCES, base.via, pick) };
    case 'key':
      return { ...base, vouch: !base.vouch };
    case 'nothing':
      return { ...base };
  }
}

interface Caller {
  identity: Identity;
  /** Done after this many answers. */
  rounds: number;
}
interface ShareCase {
  feature: 'share' | 'shareTabs';
  part: Part;
  callers: Caller[];
}
const roundsArb = fc.integer({ min: 1, max: 3 });
const shareCaseArb: fc.Arbitrary<ShareCase> = fc
  .record({
    feature: fc.constantFrom('share' as const, 'shareTabs' as const),
    part: fc.constantFrom(...PARTS),
    base: identityArb,
    pick: fc.nat({ max: 4 }),
    rounds: fc.tuple(roundsArb, roundsArb, roundsArb),
    third: fc.option(fc.constantFrom(0, 1), { nil: undefined }),
  })
  .map(({ feature, part, base, pick, rounds, third }) => {
    const pair = [base, varied(base, part, pick)];
    const identities = third === undefined ? pair : [...pair, pair[third]!];
    return { feature, part, callers: identities.map((identity, i) => ({ identity, rounds: rounds[i]! })) };
  });

// ---- the model ----------------------------------------------------------------------------------

/** What the server answers a request with: who asked, and which request it was. */
interface Echo {
  authorization: string | null;
  cookie: string | null;
  signed: string | null;
  via: string | null;
  id: number;
}

/** The answer `identity` gets of its own, but the request's number. */
const expectedEcho = (identity: Identity): Omit<Echo, 'id'> => ({
  authorization: identity.authorization ? `Bearer ${identity.authorization}` : null,
  cookie: identity.cookie ? `sid=${identity.cookie}` : null,
  signed: identity.signer?.user ?? null,
  via: identity.via?.user ?? null,
});

/** The key a vouching caller gives: the users its wrapper and dispatcher act for. */
const keyOf = (identity: Identity): string => `user ${identity.signer?.user ?? '-'} via ${identity.via?.user ?? '-'}`;
const copyOf = (instance: Instance | undefined): string | null => (instance ? `${instance.user}${instance.copy}` : null);

/**
 * Which loop a caller belongs to, by the documented rule: the request (headers), the credentials
 * mode but for its default, and either the `key` or the wrapper and dispatcher by identity.
 */
const loopOf = (identity: Identity): string =>
  JSON.stringify([
    identity.authorization ?? null,
    identity.cookie ?? null,
    identity.credentials === 'same-origin' ? null : (identity.credentials ?? null),
    identity.vouch ? ['key', keyOf(identity)] : ['by identity', copyOf(identity.signer), copyOf(identity.via)],
  ]);

// ---- the world ----------------------------------------------------------------------------------

/** A header added to undici's request options, whichever form they take (an object in Node 20's undici, an array or string elsewhere). */
function withHeader(headers: unknown, name: string, value: string): unknown {
  if (Array.isArray(headers)) return [...(headers as unknown[]), name, value];
  if (typeof headers === 'string') return `${headers}${name}: ${value}\r\n`;
  return { ...(headers as Record<string, string> | undefined), [name]: value };
}

/** Web Locks with their semantics per name: one holder, requests granted in order, a signal cancels a pending one. */
function webLocks(): { request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<unknown>): Promise<unknown>; busy(): number } {
  const queues = new Map<string, Array<() => void>>();
  const held = new Set<string>();
  const next = (name: string): void => {
    const grant = queues.get(name)?.shift();
    if (grant) return grant();
    held.delete(name);
    queues.delete(name);
  };
  return {
    busy: () => held.size,
    request: (name, options, callback) =>
      new Promise((resolve, reject) => {
        const { signal } = options;
        if (signal?.aborted) return reject(signal.reason);
        const grant = (): void => {
          signal?.removeEventListener('abort', onAbort);
          held.add(name);
          callback()
            .then(resolve, reject)
            .finally(() => next(name));
        };
        const onAbort = (): void => {
          const queue = queues.get(name) ?? [];
          if (!queue.includes(grant)) return;
          queue.splice(queue.indexOf(grant), 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort);
        if (!held.has(name)) return grant();
        queues.set(name, [...(queues.get(name) ?? []), grant]);
      }),
  };
}

const locks = webLocks();
const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
let agent: FetchDispatcher;
beforeAll(async () => {
  Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true });
  agent = await fetchAgent();
});
afterAll(async () => {
  if (saved) Object.defineProperty(globalThis, 'navigator', saved);
  else delete (globalThis as { navigator?: unknown }).navigator;
  await agent.close();
});

const listeners = trackListeners();
afterAll(() => listeners.uninstall());
const unhandled = watchUnhandled();
afterAll(() => unhandled.stop());

const channelsNow = (): number => process.getActiveResourcesInfo().filter((name) => name === 'MessagePort').length;

// ---- the property -------------------------------------------------------------------------------

describe('share() and shareTabs() share a loop only among callers who would get the same answer', () => {
  it(`pairs of callers differing in one part of who is asking: each gets only its own answers, one loop per identity (${slowRuns(150)} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(shareCaseArb, async (c) => {
        const server = await startRawServer((socket, index, request) => {
          const { authorization = null, cookie = null, 'x-signed': signed = null, 'x-via': via = null } = request.headers;
          const body = JSON.stringify({ authorization, cookie, signed, via, id: index });
          socket.end(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
        });
        // Two copies of each user's wrapper and dispatcher: equal in what they do, two objects.
        const signers = new Map<string, typeof fetch>();
        const dispatchers = new Map<string, FetchDispatcher>();
        for (const user of ['a', 'b'] as const) {
          for (const copy of [0, 1]) {
            signers.set(`${user}${copy}`, (input, init) => {
              const headers = new Headers(init?.headers);
              headers.set('x-signed', user);
              return fetch(input, { ...init, headers });
            });
            dispatchers.set(`${user}${copy}`, { dispatch: (options, handler) => agent.dispatch({ ...options, headers: withHeader(options.headers, 'x-via', user) }, handler), close: async () => undefined });
          }
        }
        const timersBefore = timersNow();
        const channelsBefore = channelsNow();
        const { env, pending } = realTimersEnv();
        const controllers = c.callers.map(() => new AbortController());
        const seen: Echo[][] = c.callers.map(() => []);
        listeners.forget();
        const outcomes = await Promise.all(
          c.callers.map(({ identity, rounds }, i) => {
            let answers = 0;
            const headers: Record<string, string> = {};
            if (identity.authorization) headers.authorization = `Bearer ${identity.authorization}`;
            if (identity.cookie) headers.cookie = `sid=${identity.cookie}`;
            const options = identity.vouch ? { key: keyOf(identity) } : undefined;
            return poll<Echo>(server.url, {
              env,
              signal: controllers[i]!.signal,
              interval: 5,
              use: [c.feature === 'share' ? share(options) : shareTabs(options)],
              ...(identity.signer && { fetch: signers.get(copyOf(identity.signer)!)! }),
              init: { headers, ...(identity.credentials && { credentials: identity.credentials }), ...(identity.via && { dispatcher: dispatchers.get(copyOf(identity.via)!) }) } as RequestInit,
              onUpdate: (echo) => void seen[i]!.push(echo),
              isDone: () => (answers += 1) >= rounds,
            }).then(
              (value) => ({ value }),
              (error: unknown) => ({ error }),
            );
          }),
        );
        const loops = new Map<string, number>();
        for (const { identity, rounds } of c.callers) loops.set(loopOf(identity), Math.max(loops.get(loopOf(identity)) ?? 0, rounds));
        const context = `${JSON.stringify(c)}\n-> ${JSON.stringify(outcomes, (_k, v: unknown) => (v instanceof Error ? String(v) : v))}\nseen: ${JSON.stringify(seen.map((list) => list.map((e) => e.id)))}, ${server.requests} requests`;
        c.callers.forEach(({ identity, rounds }, i) => {
          const own = expectedEcho(identity);
          // Its own answers only, one per round, each a newer request, the last the one it resolves with.
          expect(seen[i]!.map(({ id: _id, ...who }) => who), `caller ${i}: ${context}`).toEqual(Array<unknown>(rounds).fill(own));
          expect(outcomes[i], `caller ${i}: ${context}`).toEqual({ value: seen[i]!.at(-1) });
          const ids = seen[i]!.map((echo) => echo.id);
          expect([...ids].sort((x, y) => x - y), `caller ${i}: ${context}`).toEqual([...new Set(ids)]);
        });
        // Callers of one loop saw the same requests (one a prefix of the other's); callers of two loops, none in common.
        c.callers.forEach((one, i) =>
          c.callers.forEach((other, j) => {
            if (j <= i) return;
            const [mine, theirs] = [seen[i]!.map((e) => e.id), seen[j]!.map((e) => e.id)];
            const shortest = Math.min(mine.length, theirs.length);
            if (loopOf(one.identity) === loopOf(other.identity)) expect(mine.slice(0, shortest), `callers ${i} and ${j} share: ${context}`).toEqual(theirs.slice(0, shortest));
            else expect(mine.filter((id) => theirs.includes(id)), `callers ${i} and ${j} do not share: ${context}`).toEqual([]);
          }),
        );
        // One loop per identity, each as long as its longest caller: no more requests, and no fewer.
        expect(server.requests, context).toBe([...loops.values()].reduce((sum, rounds) => sum + rounds, 0));
        // A leader keeps its lock one interval past the end, for the other tabs to hear the last answer: then lets go of it, and of its timer.
        expect(await eventually(() => locks.busy() === 0 && pending() === 0), `Web Locks still held: ${context}`).toBe(true);
        expect(await eventually(() => channelsNow() <= channelsBefore), `BroadcastChannels left open: ${context}`).toBe(true);
        await expectNothingLeft({ servers: [server], pending, timersBefore, listeners, closedTargets: ['BroadcastChannel', 'MessagePort'] }, context);
        for (const { signal } of controllers) expect(listeners.live(signal), `listeners left on a caller's signal: ${context}`).toEqual([]);
        expect(unhandled.seen, context).toEqual([]);
      }),
      { numRuns: slowRuns(150) },
    );
  }, 240_000);
});
