import { describe, expect, it } from 'vitest';
import { shareAcrossTabs, type LockManagerLike, type TabShare } from '../../src/cooperate/tab-leader.js';
import { resolveEnvironment } from '../../src/env/environment.js';
import { wait } from '../../src/env/wait.js';
import { fakeLocks, TrackedChannel } from './helpers/fake-locks.js';
import { flush, switchable, untilWithTimers, virtualClock } from './helpers/virtual-clock.js';

// The interleavings of the tab election: visibility that calls without a
// change, a tab hidden and shown again while its lead unwinds, a lead that
// fails while the tab still needs the loop, a handover after a body with no
// next-due time. The rule under all of them: a tab that is visible and not
// stopped has exactly one lock request (queued or held), and a hidden one
// none. The fake Web Locks have the real semantics (one holder, requests
// granted in order, a signal cancels a pending request only).

let profiles = 0;

/** One tab's view of the profile's lock manager: how many requests it made, and how many are not settled. */
function counted(locks: LockManagerLike) {
  let asked = 0;
  let outstanding = 0;
  return {
    asked: () => asked,
    outstanding: () => outstanding,
    request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<unknown>): Promise<unknown> {
      asked += 1;
      outstanding += 1;
      return locks.request(name, options, callback).finally(() => void (outstanding -= 1));
    },
  };
}

/** A fresh profile: its own lock and channel name, clock (from 0), lock manager and log of the requests sent. */
function profile() {
  profiles += 1;
  const name = `races-${profiles}`;
  const clock = virtualClock({ start: 0 });
  const locks = fakeLocks();
  /** Each request as `<tab> <n> at <ms>`, with ` hidden` when the tab was hidden. */
  const sent: string[] = [];

  /**
   * A tab: leading holds the handover's wait (logged as `takeover <ms>`), then
   * sends, publishes and announces a counter every 1000 ms; with `failing`,
   * its first lead fails right after its first request. `fail` only records.
   */
  const open = (tab: string, options: { hidden?: boolean; failing?: boolean } = {}) => {
    const hidden = switchable(options.hidden ?? false);
    const stop = new AbortController();
    const roles: string[] = [];
    const received: number[] = [];
    const failed: unknown[] = [];
    const tabLocks = counted(locks);
    let leads = 0;
    const env = resolveEnvironment({ ...clock.env(), visibility: { hidden: hidden.is, subscribe: hidden.subscribe } });
    const share: TabShare<number> = {
      name,
      env,
      pauseWhenHidden: true,
      interval: 1000,
      stop: stop.signal,
      async lead(signal, delay, publish, schedule) {
        leads += 1;
        if (delay > 0) {
          roles.push(`takeover ${delay}`);
          await wait(env, delay, signal);
        }
        for (;;) {
          const n = sent.length + 1;
          sent.push(`${tab} ${n} at ${clock.now()}${hidden.on ? ' hidden' : ''}`);
          if (options.failing && leads === 1) throw new Error(`${tab}'s poll failed`);
          void publish(n, clock.now());
          schedule(clock.now() + 1000);
          await wait(env, 1000, signal);
        }
      },
      deliver: async (data) => void received.push(data),
      fail: (error) => void failed.push(error),
      onRole: (role) => void roles.push(role),
    };
    shareAcrossTabs(share, { locks: tabLocks, Channel: TrackedChannel });
    return { stop, hidden, roles, received, failed, locks: tabLocks };
  };
  return { name, clock, locks, sent, open };
}

describe('shareAcrossTabs: the interleavings', () => {
  it('a tab opened hidden asks for no lock and never leads; once visible it queues and leads', async () => {
    const { clock, sent, open } = profile();
    const a = open('a', { hidden: true });
    await clock.advance(5000);
    await flush();
    expect(a.locks.asked()).toBe(0);
    expect(sent).toEqual([]);
    a.hidden.set(false);
    await untilWithTimers(clock, () => sent.length === 1, 'a leads once visible');
    expect(sent).toEqual(['a 1 at 5000']);
    expect(a.roles).toEqual(['leader']);
    expect(a.locks.outstanding()).toBe(1);
    a.stop.abort();
  });

  it('a visibility call that changes nothing (a source calls when visibility may have changed) adds no lock request: hidden later, the tab steps down', async () => {
    const { clock, sent, open } = profile();
    const a = open('a');
    await untilWithTimers(clock, () => sent.length === 1, 'a leads');
    a.hidden.set(false); // still visible
    await flush();
    expect(a.locks.asked()).toBe(1);
    a.hidden.set(true);
    await flush();
    await clock.advance(5000);
    await flush();
    expect(sent).toEqual(['a 1 at 0']);
    expect(a.locks.outstanding()).toBe(0);
    a.stop.abort();
  });

  it('hidden and visible again while its lead unwinds: one new lock request, and hidden again it steps down', async () => {
    const { clock, sent, open } = profile();
    const a = open('a');
    await untilWithTimers(clock, () => sent.length === 1, 'a leads');
    a.hidden.set(true);
    a.hidden.set(false); // in the same task: the aborted lead has not unwound yet
    await untilWithTimers(clock, () => sent.length === 2, 'a leads again');
    expect(sent).toEqual(['a 1 at 0', 'a 2 at 0']); // back from hidden, a poll goes out at once
    await flush();
    expect([a.locks.asked(), a.locks.outstanding()]).toEqual([2, 1]);
    a.hidden.set(true);
    await flush();
    await clock.advance(5000);
    await flush();
    expect(sent).toEqual(['a 1 at 0', 'a 2 at 0']);
    expect(a.locks.outstanding()).toBe(0);
    a.stop.abort();
  });

  it('a tab whose lead failed reports the error and, still needing the loop, queues again behind the tab that queued meanwhile', async () => {
    const { clock, sent, open } = profile();
    const a = open('a', { failing: true });
    const b = open('b');
    await untilWithTimers(clock, () => sent.length === 2, 'b leads after the failure');
    await flush();
    expect(sent).toEqual(['a 1 at 0', 'b 2 at 0']);
    expect(a.failed).toEqual([new Error("a's poll failed")]);
    expect(a.locks.outstanding()).toBe(1);
    await clock.advance(300);
    b.stop.abort();
    await untilWithTimers(clock, () => a.roles.length === 4, 'a takes over');
    expect(a.roles).toEqual(['leader', 'follower', 'leader', 'takeover 700']);
    await clock.advance(700);
    await untilWithTimers(clock, () => sent.length === 3, 'a polls');
    expect(sent).toEqual(['a 1 at 0', 'b 2 at 0', 'a 3 at 1000']);
    a.stop.abort();
  });

  it.each([
    ['300 ms before', 4700, ['takeover 700'], ['a 1 at 5700', 'a 2 at 6700']],
    ['two intervals before', 3000, [], ['a 1 at 5000', 'a 2 at 6000', 'a 3 at 7000']],
    ['300 ms after (the wall clock was set back)', 5300, ['takeover 1000'], ['a 1 at 6000', 'a 2 at 7000']],
  ])('a tab that heard a body sent %s now, and no next-due time, takes over one interval after that body at most', async (_when, sentAt, takeover, polls) => {
    const { name, clock, locks, sent, open } = profile();
    let release = (): void => undefined;
    // Another tab leads: it holds the lock until `release`.
    void locks.request('pollite:other', {}, () => new Promise<void>((resolve) => (release = resolve)));
    const a = open('a');
    await clock.advance(5000);
    new TrackedChannel(`pollite:${name}`).postMessage({ data: 7, sentAt });
    await untilWithTimers(clock, () => a.received.length === 1, 'the body');
    release(); // at 5000
    await untilWithTimers(clock, () => a.roles.length === 2 + takeover.length, 'a takes over');
    expect(a.roles).toEqual(['follower', 'leader', ...takeover]);
    await clock.advance(2000);
    expect(sent).toEqual(polls);
    a.stop.abort();
  });
});
