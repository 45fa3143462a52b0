import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearCooldowns, shareTabs } from '../../src/cooperate/index.js';
import { shareKey } from '../../src/kit/index.js';
import { requestFactory } from '../../src/http/request.js';
import { poll, type PollEvent } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { installFakeLocks, restoreNavigator, TrackedChannel, type fakeLocks } from './helpers/fake-locks.js';
import { until, untilWithTimers, virtualClock } from './helpers/virtual-clock.js';

// shareTabs() in Node (a fake Web Locks manager on `navigator.locks`, Node's
// real BroadcastChannel; "another tab" is a lock and a channel of the
// test's own): a poll whose answer depends on what cannot be compared
// across tabs (a fetch of its own) is not shared across tabs unless a key
// says it is the same in every tab; the names other scripts can see carry
// a hash, never the request; a leader's word on its pending wait is taken
// only as far as this tab would wait of its own.

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

interface Seen {
  user: string;
  n: number;
}
/** Answers `{ user, n }`: the Authorization it got ('nobody' without one) and a counter. */
const perUser = (): Promise<TestServer> => {
  let n = 0;
  return startServer((req, res) => sendJson(res, 200, { user: req.headers.authorization ?? 'nobody', n: ++n }));
};
const signedAs =
  (user: string): typeof fetch =>
  (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${user}` } });
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const described = (e: PollEvent): string => (e.type === 'share' ? `share:${e.role}${e.role === 'local' ? `:${e.reason}` : ''}` : e.type === 'wait' ? `wait:${e.delay}` : e.type);

/** Another tab leads `name`: it holds the lock until `release`, and talks on the channel. */
function otherTabLeads(name: string): { channel: TrackedChannel; release(): void } {
  let release = (): void => undefined;
  void locks.request(name, {}, () => new Promise<void>((resolve) => (release = resolve)));
  return { channel: new TrackedChannel(name), release: () => release() };
}

describe('shareTabs(): what it shares across tabs, and under what name', () => {
  it("a poll with a fetch of its own and no key is not shared across tabs: it polls for itself, and a 'local' share event says why", async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const other = otherTabLeads(`pollite:${sha256(shareKey(requestFactory(url, {}))!)}`);
    other.channel.onmessage = () => undefined;
    const events: PollEvent[] = [];
    const seen = await poll<Seen>(url, { use: [shareTabs()], fetch: signedAs('bob'), isDone: () => true, onEvent: (e) => events.push(e) });
    // Bob's own answer, not the other tab's: this tab asked for no lock.
    expect(seen).toEqual({ user: 'Bearer bob', n: 1 });
    expect(events.map(described)).toEqual(['share:local:fetch', 'request', 'response']);
    expect(locks.names).toHaveLength(1);
    other.release();
  });

  it('with a key saying the fetch is the same in every tab, it shares: it follows the leading tab and sends nothing', async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    // The lock and channel are named by the SHA-256 of the request and the key, which are in no name.
    const name = `pollite:${sha256(shareKey(requestFactory(url, {}), '\n@key "user alice"')!)}`;
    const other = otherTabLeads(name);
    const events: PollEvent[] = [];
    const result = poll<Seen>(url, { use: [shareTabs({ key: () => 'user alice' })], fetch: signedAs('alice'), isDone: () => true, onEvent: (e) => events.push(e) });
    await until(() => locks.names.length === 2, 'this tab in the queue');
    expect(locks.names[1]).toBe(name);
    other.channel.postMessage({ data: { user: 'Bearer alice', n: 7 }, sentAt: Date.now() });
    expect(await result).toEqual({ user: 'Bearer alice', n: 7 });
    expect(events.map(described)).toEqual(['share:follower']);
    expect(server.requests).toHaveLength(0);
    other.release();
  });

  it('names its lock and channel by a SHA-256 of the poll: no URL, header or Authorization value in a name', async () => {
    server = await perUser();
    const url = `${server.url}/private/me`;
    const init = { headers: { authorization: 'Bearer s3cret' } };
    const heard: unknown[] = [];
    const listener = new TrackedChannel(`pollite:${sha256(shareKey(requestFactory(url, init))!)}`);
    listener.onmessage = (event: MessageEvent) => void heard.push(event.data);
    expect(await poll<Seen>(url, { use: [shareTabs()], init, isDone: () => true })).toEqual({ user: 'Bearer s3cret', n: 1 });
    expect(locks.names).toHaveLength(1);
    expect(locks.names[0]).toMatch(/^pollite:[0-9a-f]{64}$/);
    // The body went out on the channel of that name.
    await until(() => heard.length === 1, 'the broadcast');
    expect(heard[0]).toMatchObject({ data: { user: 'Bearer s3cret', n: 1 } });
  });

  it("a leader's pending wait is kept up to this tab's own maxRetryAfter (or interval): a huge or garbled one does not stop it", async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const clock = virtualClock();
    const other = otherTabLeads(`pollite:${sha256(shareKey(requestFactory(url, {}))!)}`);
    const events: PollEvent[] = [];
    const result = poll<Seen>(url, { use: [shareTabs()], interval: 1000, maxRetryAfter: 3000, env: clock.env(), isDone: () => true, onEvent: (e) => events.push(e) });
    await until(() => locks.names.length === 2, 'this tab in the queue');
    other.channel.postMessage('garbage');
    other.channel.postMessage({ nextAt: clock.now() + 1e12 });
    await until(() => events.length === 1, 'the follower event');
    other.release();
    await untilWithTimers(clock, () => events.some((e) => e.type === 'wait'), 'the takeover wait');
    expect(events.map(described)).toEqual(['share:follower', 'share:leader', 'wait:3000']);
    await clock.advance(3000);
    expect(await result).toEqual({ user: 'nobody', n: 1 });
  });

  it('refuses a bad key with a TypeError naming it', () => {
    expect(() => shareTabs({ key: '' })).toThrow(new TypeError('Expected `key` to be a non-empty string or a function'));
    expect(() => shareTabs({ key: null as never })).toThrow(new TypeError('Expected `key` to be a non-empty string or a function'));
  });
});
