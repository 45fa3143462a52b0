import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { share, shareTabs } from '../../src/cooperate/index.js';
import { requestFactory } from '../../src/http/request.js';
import { poll, type PollEvent } from '../../src/index.js';
import { shareKey } from '../../src/kit/index.js';
import { checkpoint, memoryStore, readCheckpoint, type Checkpoint, type CheckpointStore } from '../../src/resume/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { installFakeLocks, restoreNavigator, TrackedChannel, type fakeLocks } from '../cooperate/helpers/fake-locks.js';
import { until, untilWithTimers, virtualClock } from '../cooperate/helpers/virtual-clock.js';

// A checkpoint and shareTabs() together, in Node: this realm is one tab (a
// fake Web Locks manager on `navigator.locks`, Node's real
// BroadcastChannel); "the tab that leads" is a lock request and a channel of
// the test's own. Chromium runs the real thing: test/browser/resume-tabs.test.ts.

let server: TestServer | undefined;
let locks: ReturnType<typeof fakeLocks>;
beforeEach(() => {
  locks = installFakeLocks();
});
afterEach(async () => {
  restoreNavigator();
  await server?.close();
  server = undefined;
});

type Job = { n: number; done?: boolean };

/** The Web Lock and BroadcastChannel of `url`'s poll: a checkpoint before shareTabs() is no part of what makes polls the same. */
const nameOf = (url: string): string => `pollite:${createHash('sha256').update(shareKey(requestFactory(url, {}))!).digest('hex')}`;
const described = (e: PollEvent): string => (e.type === 'share' ? `share:${e.role}` : e.type === 'wait' ? `wait:${e.delay}` : e.type === 'request' ? `request:${e.attempt}` : e.type);

/** A checkpoint of `url`'s poll as the tab that polled before the reload left it. */
const written = (url: string, fields: Partial<Checkpoint>): string =>
  JSON.stringify({ v: 1, kind: 'poll', origin: new URL(url).origin, request: { method: 'GET', url }, url, failures: 0, savedAt: 1, ...fields });

/** A memory store that also lists what this tab writes to it. */
function loggedStore(): CheckpointStore & { entries: Map<string, string>; writes: Array<Checkpoint | 'deleted'> } {
  const store = memoryStore();
  const writes: Array<Checkpoint | 'deleted'> = [];
  return {
    entries: store.entries,
    writes,
    get: (key) => store.get(key),
    set: (key, value) => {
      writes.push(readCheckpoint(value, key));
      return store.set(key, value);
    },
    delete: (key) => {
      writes.push('deleted');
      return store.delete(key);
    },
  };
}

/** Another tab that leads `url`'s poll: it holds the lock until `close()`, and talks on the poll's channel. */
function otherTab(url: string): { channel: TrackedChannel; close(): void } {
  let release = (): void => undefined;
  void locks.request('pollite:other', {}, () => new Promise<void>((resolve) => (release = resolve)));
  return { channel: new TrackedChannel(nameOf(url)), close: () => release() };
}

/**
 * This tab and another one resumed a checkpoint whose saved wait ends at `due` (5 s from now); the other one leads,
 * holding that wait (it told this tab its next request is due then), and closes 1 s in. `timers` stands in for
 * the env's setTimeout (a busy tab's, a timer that fires early). Returns once the leader is gone.
 */
async function savedWaitTakeover(timers?: (clock: ReturnType<typeof virtualClock>) => (callback: () => void, ms: number) => unknown) {
  server = await startServer((_req, res) => sendJson(res, 200, { n: 1, done: true }));
  const url = `${server.url}/job`;
  const clock = virtualClock();
  const env = timers ? { ...clock.env(), setTimeout: timers(clock) } : clock.env();
  const store = loggedStore();
  const due = clock.now() + 5000;
  store.entries.set('job', written(url, { notBefore: due }));
  const leader = otherTab(url);
  const events: PollEvent[] = [];
  const result = poll<Job>(url, { use: [checkpoint({ store, key: 'job' }), shareTabs()], interval: 1000, cooldown: false, env, isDone: (job) => job.done === true, onEvent: (e) => events.push(e) });
  await until(() => locks.names.includes(nameOf(url)), 'this tab in the queue');
  leader.channel.postMessage({ nextAt: due });
  await until(() => events.length === 1, 'the leader heard');
  await clock.advance(1000);
  leader.close();
  return { clock, store, due, events, result, requests: server.requests };
}

describe('checkpoint() before shareTabs(): the tab that takes over', () => {
  it('saves the last body it was given (another tab polled it), not the one it found when it began, and without its validators', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, { n: 11, done: true }));
    const url = `${server.url}/job`;
    const clock = virtualClock();
    const store = loggedStore();
    // The checkpoint this tab resumes: the job as it was at the reload, body 3, its wait over.
    store.entries.set('job', written(url, { data: { n: 3 }, etag: '"3"', notBefore: clock.now() - 1000 }));
    const leader = otherTab(url);
    const events: PollEvent[] = [];
    const updates: number[] = [];
    const result = poll<Job>(url, {
      use: [checkpoint({ store, key: 'job', data: true }), shareTabs()],
      interval: 1000,
      cooldown: false,
      env: clock.env(),
      isDone: (job) => job.done === true,
      onUpdate: (job) => void updates.push(job.n),
      onEvent: (e) => events.push(e),
    });
    await until(() => locks.names.includes(nameOf(url)), 'this tab in the queue');
    // The leading tab polled body 10, and its next request is due in 5 s.
    leader.channel.postMessage({ data: { n: 10 }, sentAt: clock.now() });
    leader.channel.postMessage({ nextAt: clock.now() + 5000 });
    await until(() => updates.length === 2, 'the body broadcast by the leader');
    expect(store.writes).toEqual([]); // a follower writes nothing
    leader.close();
    await untilWithTimers(clock, () => events.some((e) => e.type === 'wait'), 'the takeover wait');
    expect(events.map(described)).toEqual(['share:follower', 'share:leader', 'wait:5000']);
    // Its first write, at the takeover's wait: body 10, not 3; body 10's validators are not known here.
    expect(store.writes).toHaveLength(1);
    expect(store.writes[0]).toMatchObject({ notBefore: clock.now() + 5000, data: { n: 10 } });
    expect(store.writes[0]).not.toHaveProperty('etag');
    await clock.advance(4999);
    expect(server.requests).toHaveLength(0);
    await clock.advance(1);
    expect(await result).toEqual({ n: 11, done: true });
    expect(updates).toEqual([3, 10, 11]);
    expect(events.map(described).slice(3)).toEqual(['request:1', 'response']);
    expect(server.requests[0]!.headers['if-none-match']).toBeUndefined();
    expect(store.writes.at(-1)).toBe('deleted');
    expect(store.entries.size).toBe(0);
  });

  it('waits out the saved wait once: its checkpoint holds it, and the handover ends at the same time (one wait, not two)', async () => {
    const { clock, store, events, result, requests } = await savedWaitTakeover();
    await untilWithTimers(clock, () => events.some((e) => e.type === 'wait'), 'the takeover wait');
    expect(events.map(described)).toEqual(['share:follower', 'share:leader', 'wait:4000']);
    await clock.advance(3999);
    expect(requests).toHaveLength(0);
    await clock.advance(1);
    expect(await result).toEqual({ n: 1, done: true });
    expect(events.map(described).slice(3)).toEqual(['request:1', 'response']);
    expect(store.entries.size).toBe(0);
  });

  it("a takeover whose first yield runs late still ends the handover's wait at the last leader's instant: one wait, not two", async () => {
    // A busy tab runs the takeover's 0 ms yield 5 ms late: the handover's wait must still end when the last leader said
    // its next request was due (T), as the checkpoint's does, not 5 ms after it (a second wait of 5 ms).
    const { clock, due, events, result, requests } = await savedWaitTakeover((clock) => (callback, ms) => clock.setTimeout(callback, ms === 0 ? 5 : ms));
    // The clock moves on a millisecond at a time until the takeover's wait begins: its yield runs 5 ms late.
    const waiting = (): boolean => events.some((e) => e.type === 'wait');
    await until(() => waiting() || (void clock.advance(1), false), 'the takeover wait');
    const [wait] = events.filter((e) => e.type === 'wait');
    expect(wait).toMatchObject({ at: due });
    await clock.advance(due - clock.now() - 1);
    expect(requests).toHaveLength(0);
    await clock.advance(1);
    await until(() => events.some((e) => e.type === 'response') || events.filter((e) => e.type === 'wait').length > 1, 'the request, or a second wait');
    // One wait, the one that ended at `due`: then the request.
    expect(events.map(described)).toEqual(['share:follower', 'share:leader', described(wait!), 'request:1', 'response']);
    expect(await result).toEqual({ n: 1, done: true });
  });

  it("a timer that fires a millisecond early does not make the handover's wait a second one: the checkpoint's announced it", async () => {
    // Node's and Chromium's timers may fire a millisecond before Date.now() says the time is up: the saved wait ends at
    // T, the checkpoint's hold is over at T - 1, and the handover's (also until T) must not hold that 1 ms again.
    const { clock, events, result } = await savedWaitTakeover((clock) => (callback, ms) => clock.setTimeout(callback, Math.max(0, ms - 1)));
    await untilWithTimers(clock, () => events.some((e) => e.type === 'wait'), 'the takeover wait');
    await clock.advance(4000);
    expect(await result).toEqual({ n: 1, done: true });
    expect(events.map(described)).toEqual(['share:follower', 'share:leader', 'wait:4000', 'request:1', 'response']);
  });
});

describe('checkpoint() after a feature that shares the loop', () => {
  it.each([
    ['shareTabs()', shareTabs],
    ['share()', share],
  ])('`[%s, checkpoint(...)]` is refused with a TypeError naming `use`, before anything is sent or saved', async (_name, sharing) => {
    server = await startServer((_req, res) => sendJson(res, 200, { n: 1, done: true }));
    const store = loggedStore();
    const error = await poll(`${server.url}/job`, { use: [sharing(), checkpoint({ store, key: 'job' })], isDone: () => true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('Expected `use` to be a list with `checkpoint()` before `share()` and `shareTabs()`: `use: [checkpoint(...), shareTabs()]`');
    expect(server.requests).toHaveLength(0);
    expect(store.writes).toEqual([]);
  });
});
