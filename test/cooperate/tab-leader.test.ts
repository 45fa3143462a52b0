import { describe, expect, it } from 'vitest';
import { shareAcrossTabs, type TabShare } from '../../src/cooperate/tab-leader.js';
import { wait } from '../../src/env/wait.js';
import { resolveEnvironment } from '../../src/env/environment.js';
import { fakeLocks, TrackedChannel } from './helpers/fake-locks.js';
import { flush, switchable, untilWithTimers, virtualClock } from './helpers/virtual-clock.js';

// The tab election on its own, in Node: a fake Web Locks manager with the
// real semantics (one holder, requests granted in order, a signal cancels a
// pending request only) and Node's real BroadcastChannel between "tabs".

let names = 0;

/**
 * A tab: its own stop signal, visibility, role log and received bodies;
 * leading holds the handover's wait (logged as `takeover <ms>`), then
 * publishes a counter, announces and waits `pace(n)` ms (the interval, or a
 * Retry-After the server sent with body n).
 */
function tab(
  name: string,
  clock: ReturnType<typeof virtualClock>,
  locks: ReturnType<typeof fakeLocks>,
  sent: Array<[string, number, number]>,
  pace: (n: number) => number = () => 1000,
) {
  const hidden = switchable(false);
  const stop = new AbortController();
  const roles: string[] = [];
  const received: number[] = [];
  let counter = 0;
  const env = resolveEnvironment({ ...clock.env(), visibility: { hidden: hidden.is, subscribe: hidden.subscribe } });
  const share: TabShare<number> = {
    name: `poll-${names}`,
    env,
    pauseWhenHidden: true,
    interval: 1000,
    stop: stop.signal,
    async lead(signal, delay, publish, schedule) {
      if (delay > 0) {
        roles.push(`takeover ${delay}`);
        await wait(env, delay, signal);
      }
      for (;;) {
        counter = sent.length + 1;
        sent.push([name, counter, clock.now()]);
        publish(counter, clock.now());
        schedule(clock.now() + pace(counter));
        await wait(env, pace(counter), signal);
      }
    },
    deliver: async (data) => void received.push(data),
    fail: (error) => {
      throw error;
    },
    onRole: (role) => void roles.push(role),
  };
  shareAcrossTabs(share, { locks, Channel: TrackedChannel });
  return { stop, hidden, roles, received };
}

/** A fresh profile: its own lock and channel name, clock, lock manager and log of sent requests; `open` starts a tab in it. */
function profile() {
  names += 1;
  const clock = virtualClock({ start: 0 });
  const locks = fakeLocks();
  const sent: Array<[string, number, number]> = [];
  return { clock, sent, locks, name: `poll-${names}`, open: (name: string, pace?: (n: number) => number) => tab(name, clock, locks, sent, pace) };
}

describe('shareAcrossTabs', () => {
  it('one tab leads, the others receive every body; closing the leader hands over on the cadence', async () => {
    const { clock, sent, open } = profile();
    const a = open('a');
    const b = open('b');
    const c = open('c');
    await untilWithTimers(clock, () => sent.length === 1);
    await clock.advance(1000);
    await untilWithTimers(clock, () => b.received.length === 2 && c.received.length === 2, 'two broadcasts');
    expect(a.roles).toEqual(['leader']);
    expect(b.roles).toEqual(['follower']);
    expect(a.received).toEqual([1, 2]);
    expect(b.received).toEqual([1, 2]);
    await clock.advance(300);
    a.stop.abort(); // the leading tab closes 300 ms into its interval
    await untilWithTimers(clock, () => b.roles.length === 3, 'b takes over');
    expect(b.roles).toEqual(['follower', 'leader', 'takeover 700']);
    await clock.advance(700);
    await untilWithTimers(clock, () => sent.length === 3);
    expect(sent).toEqual([
      ['a', 1, 0],
      ['a', 2, 1000],
      ['b', 3, 2000], // one interval after a's last request, as if nothing had happened
    ]);
    await untilWithTimers(clock, () => c.received.length === 3);
    expect(c.received).toEqual([1, 2, 3]);
    b.stop.abort();
    c.stop.abort();
  });

  it("a new leader keeps the last leader's longer wait (a Retry-After, a backoff), not just one interval", async () => {
    const { clock, sent, open } = profile();
    const retryAfter = (n: number): number => (n === 2 ? 60_000 : 1000);
    const a = open('a', retryAfter);
    const b = open('b', retryAfter);
    await untilWithTimers(clock, () => sent.length === 1);
    await clock.advance(1000);
    await untilWithTimers(clock, () => b.received.length === 2, 'the second body, told to wait 60 s');
    await clock.advance(300);
    a.stop.abort();
    await untilWithTimers(clock, () => b.roles.length === 3, 'b takes over');
    expect(b.roles).toEqual(['follower', 'leader', 'takeover 59700']);
    await clock.advance(59_699);
    expect(sent).toHaveLength(2);
    await clock.advance(1);
    await untilWithTimers(clock, () => sent.length === 3);
    expect(sent[2]).toEqual(['b', 3, 61_000]);
    b.stop.abort();
  });

  it('a hidden leader steps down and a hidden tab never leads; it comes back to the queue when visible', async () => {
    const { clock, sent, open } = profile();
    const a = open('a');
    const b = open('b');
    await untilWithTimers(clock, () => sent.length === 1);
    b.hidden.set(true); // b leaves the queue
    a.hidden.set(true); // a steps down: nobody visible, nobody polls
    await flush(); // the cancelled bids unwind while their tabs are hidden: only a tab shown again asks again
    await clock.advance(5000);
    expect(sent.map(([who]) => who)).toEqual(['a']);
    // b's cancelled bid was never granted: it never led, even for a turn.
    expect(b.roles).toEqual(['follower']);
    b.hidden.set(false);
    await untilWithTimers(clock, () => sent.length === 2, 'b leads once visible');
    expect(sent[1]![0]).toBe('b');
    a.hidden.set(false);
    await clock.advance(1000);
    await untilWithTimers(clock, () => sent.length === 3);
    expect(sent.map(([who]) => who)).toEqual(['a', 'b', 'b']); // a queues behind b
    expect(a.received).toEqual([1, 2, 3]); // informed while hidden
    expect(a.roles).toEqual(['leader', 'follower']); // a leader that stepped down follows the next one
    a.stop.abort();
    b.stop.abort();
  });

  it("asks for the lock `pollite:<name>`; a message heard while leading is news, and leaves it the leader", async () => {
    const { clock, sent, locks, name, open } = profile();
    const a = open('a');
    await untilWithTimers(clock, () => sent.length === 1);
    expect(locks.names).toEqual([`pollite:${name}`]);
    const late = new TrackedChannel(`pollite:${name}`);
    late.postMessage({ data: 99, sentAt: 0 });
    await untilWithTimers(clock, () => a.received.length === 2, 'the late body');
    expect(a.received).toEqual([1, 99]);
    expect(a.roles).toEqual(['leader']);
    a.stop.abort();
  });

  it('a tab that stops closes its channel and stops listening to visibility', async () => {
    const { clock, sent, name, open } = profile();
    const a = open('a');
    await untilWithTimers(clock, () => sent.length === 1);
    expect(a.hidden.listeners()).toBe(1);
    a.stop.abort();
    expect(a.hidden.listeners()).toBe(0);
    const other = new TrackedChannel(`pollite:${name}`);
    other.postMessage({ data: 5, sentAt: 0 });
    const probe = new TrackedChannel(`pollite:${name}`);
    const heard = new Promise((resolve) => (probe.onmessage = resolve));
    other.postMessage({ data: 6, sentAt: 0 });
    await heard;
    expect(a.received).toEqual([1]);
  });

  it("a lock request that fails (not cancelled) is the poll's error", async () => {
    const clock = virtualClock({ start: 0 });
    const env = resolveEnvironment(clock.env());
    const failed: unknown[] = [];
    const refused = new Error('locks refused');
    const stop = new AbortController();
    shareAcrossTabs<number>(
      {
        name: 'refused',
        env,
        pauseWhenHidden: false,
        interval: 1000,
        stop: stop.signal,
        lead: async () => undefined,
        deliver: async () => undefined,
        // As shareTabs does: the error settles this tab's callers, and the last one leaving stops the tab.
        fail: (error) => {
          failed.push(error);
          stop.abort();
        },
        onRole: () => undefined,
      },
      { locks: { request: () => Promise.reject(refused) }, Channel: TrackedChannel },
    );
    await untilWithTimers(clock, () => failed.length > 0, 'the failure');
    expect(failed).toEqual([refused]);
  });
});
