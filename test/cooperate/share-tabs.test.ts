import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearCooldowns, shareTabs } from '../../src/cooperate/index.js';
import { shareKey } from '../../src/kit/index.js';
import { requestFactory } from '../../src/http/request.js';
import { HttpError, poll, type PollEvent } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { installFakeLocks, restoreNavigator, TrackedChannel, type fakeLocks } from './helpers/fake-locks.js';
import { until, untilWithTimers, virtualClock } from './helpers/virtual-clock.js';

// shareTabs() over the tab election, in Node: this realm is one tab, with a
// fake Web Locks manager on `navigator.locks` and Node's real
// BroadcastChannel; "another tab" is a lock request and a channel of the
// test's own. (Several tabs in one realm would join one realm loop.)

let server: TestServer | undefined;
let locks: ReturnType<typeof fakeLocks>;
beforeEach(() => {
  locks = installFakeLocks();
});
afterEach(async () => {
  restoreNavigator();
  await server?.close();
  server = undefined;
  clearCooldowns();
});

interface Tick {
  n: number;
}
/** Answers {n} with a counter. */
const counting = async (): Promise<TestServer> => {
  let n = 0;
  return startServer((_req, res) => sendJson(res, 200, { n: ++n }));
};
/** The name of the Web Lock and BroadcastChannel of `url`'s poll: the SHA-256 of its key, so no URL or header is in it. */
const nameOf = (url: string, init: RequestInit = {}): string => `pollite:${createHash('sha256').update(shareKey(requestFactory(url, init))!).digest('hex')}`;
/** The channel the tabs of `url`'s poll talk on. */
const channelOf = (url: string): TrackedChannel => new TrackedChannel(nameOf(url));
const described = (e: PollEvent): string => (e.type === 'share' ? `share:${e.role}` : e.type === 'wait' ? `wait:${e.delay}` : e.type);

describe('shareTabs() with Web Locks and BroadcastChannel', () => {
  it('the only tab leads and broadcasts every body; once its callers are done it holds the lock one interval more', async () => {
    server = await counting();
    const url = `${server.url}/job`;
    const clock = virtualClock();
    const heard: unknown[] = [];
    const other = channelOf(url);
    other.onmessage = (event: MessageEvent) => void heard.push(event.data);
    const events: PollEvent[] = [];
    const result = poll<Tick>(url, { use: [shareTabs()], interval: 1000, env: clock.env(), isDone: (t) => t.n >= 2, onEvent: (e) => events.push(e) });
    await untilWithTimers(clock, () => server!.requests.length === 1 && clock.pending() === 1, 'the first request');
    await clock.advance(1000);
    expect(await result).toEqual({ n: 2 });
    expect(events.map(described)).toEqual(['share:leader', 'request', 'response', 'wait:1000', 'request', 'response']);
    await until(() => heard.filter((m) => 'data' in (m as object)).length === 2, 'both bodies broadcast');
    expect(heard).toContainEqual({ data: { n: 2 }, sentAt: clock.now() });
    // The other tabs learn the final body before the lock is free: none of them polls the finished job again.
    expect(locks.held()).toBe(true);
    await clock.advance(999);
    expect(locks.held()).toBe(true);
    await clock.advance(1);
    await until(() => !locks.held(), 'the lock released');
    expect(server.requests).toHaveLength(2);
  });

  it("a tab that takes over waits out the last leader's pending wait (a wait event), and is told the bodies meanwhile", async () => {
    server = await counting();
    const url = `${server.url}/job`;
    const clock = virtualClock();
    let release = (): void => undefined;
    // Another tab leads: it holds the lock until `release`.
    void locks.request('pollite:other', {}, () => new Promise<void>((resolve) => (release = resolve)));
    const events: PollEvent[] = [];
    const updates: number[] = [];
    const result = poll<Tick>(url, {
      use: [shareTabs()],
      interval: 1000,
      env: clock.env(),
      isDone: (t) => t.n === 1,
      onUpdate: (t) => void updates.push(t.n),
      onEvent: (e) => events.push(e),
    });
    const leader = channelOf(url);
    // This tab listens once it has named its lock and channel (a hash, computed asynchronously).
    await until(() => locks.names.includes(nameOf(url)), 'this tab in the queue');
    leader.postMessage({ data: { n: 7 }, sentAt: clock.now() });
    leader.postMessage({ nextAt: clock.now() + 5000 }); // e.g. the Retry-After it was told
    await until(() => updates.length === 1, 'the body broadcast by the leader');
    expect(updates).toEqual([7]);
    expect(server.requests).toHaveLength(0);
    release(); // the leading tab closes
    await untilWithTimers(clock, () => events.some((e) => e.type === 'wait'), 'the takeover wait');
    expect(events.map(described)).toEqual(['share:follower', 'share:leader', 'wait:5000']);
    await clock.advance(4999);
    expect(server.requests).toHaveLength(0);
    await clock.advance(1);
    expect(await result).toEqual({ n: 1 });
    expect(updates).toEqual([7, 1]);
    expect(events.map(described).slice(3)).toEqual(['request', 'response']);
  });

  it("a broadcast body says when its request left, not when its answer came: the server holds it while the clock moves", async () => {
    let answer = (): void => undefined;
    server = await startServer((_req, res) => void (answer = () => sendJson(res, 200, { n: 1 })));
    const url = `${server.url}/job`;
    const clock = virtualClock();
    const heard: unknown[] = [];
    const other = channelOf(url);
    other.onmessage = (event: MessageEvent) => void heard.push(event.data);
    const result = poll<Tick>(url, { use: [shareTabs()], interval: 1000, env: clock.env(), isDone: (t) => t.n === 1 });
    await untilWithTimers(clock, () => server!.requests.length === 1, 'the request');
    expect(clock.now()).toBe(1_000_000);
    await clock.advance(300); // the answer comes 300 ms after the request
    answer();
    expect(await result).toEqual({ n: 1 });
    await until(() => heard.length === 1, 'the broadcast');
    // A next leader counts its interval from the request (1,000,000), not from the answer.
    expect(heard).toEqual([{ data: { n: 1 }, sentAt: 1_000_000 }]);
  });

  it("an error of the leader's loop (a 404) rejects this tab's callers with the HttpError", async () => {
    server = await startServer((_req, res) => sendJson(res, 404, {}));
    const clock = virtualClock();
    let error: unknown;
    const settled = poll(`${server.url}/gone`, { use: [shareTabs()], env: clock.env() }).catch((e: unknown) => (error = e));
    // The new leader yields once (a zero wait on the clock) before its first request.
    await untilWithTimers(clock, () => error !== undefined, 'the rejection');
    await settled;
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(404);
    expect(server.requests).toHaveLength(1);
  });
});
