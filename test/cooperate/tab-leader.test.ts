import { afterEach, describe, expect, it } from 'vitest';
import { shareAcrossTabs, type TabShare } from '../../src/cooperate/tab-leader.js';
import { sleepIn } from '../../src/env/sleep.js';
import { resolveEnvironment } from '../../src/env/environment.js';
import { switchable, until, virtualClock } from './helpers/virtual-clock.js';

// The tab election on its own, in Node: a fake Web Locks manager with the
// real semantics (one holder, requests granted in order, a signal cancels a
// pending request only) and Node's real BroadcastChannel between "tabs".

function fakeLocks() {
  let held = false;
  const queue: Array<() => void> = [];
  const next = (): void => {
    const grant = queue.shift();
    if (grant) grant();
    else held = false;
  };
  return {
    request(_name: string, options: { signal?: AbortSignal }, callback: () => Promise<unknown>): Promise<unknown> {
      return new Promise((resolve, reject) => {
        const { signal } = options;
        if (signal?.aborted) return reject(signal.reason);
        const grant = (): void => {
          held = true;
          signal?.removeEventListener('abort', onAbort);
          callback().then(resolve, reject).finally(next);
        };
        const onAbort = (): void => {
          const index = queue.indexOf(grant);
          if (index < 0) return;
          queue.splice(index, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort);
        if (held) queue.push(grant);
        else grant();
      });
    },
  };
}

const channels: BroadcastChannel[] = [];
class TrackedChannel extends BroadcastChannel {
  constructor(name: string) {
    super(name);
    channels.push(this);
  }
}
afterEach(() => {
  for (const channel of channels.splice(0)) channel.close();
});

let names = 0;

/** Like `until`, running the zero-delay timers (the yields of a handover) as it waits. */
async function settle(clock: ReturnType<typeof virtualClock>, condition: () => boolean, what = 'condition'): Promise<void> {
  await until(() => {
    if (!condition()) void clock.advance(0);
    return condition();
  }, what);
}

/**
 * A tab: its own stop signal, visibility, role log and received bodies;
 * leading publishes a counter, then announces and waits `wait(n)` ms (the
 * interval, or a Retry-After the server sent with body n).
 */
function tab(
  name: string,
  clock: ReturnType<typeof virtualClock>,
  locks: ReturnType<typeof fakeLocks>,
  sent: Array<[string, number, number]>,
  wait: (n: number) => number = () => 1000,
) {
  const hidden = switchable(false);
  const stop = new AbortController();
  const roles: string[] = [];
  const received: number[] = [];
  let counter = 0;
  const env = resolveEnvironment({ ...clock.env, visibility: { hidden: hidden.is, subscribe: hidden.subscribe } });
  const share: TabShare<number> = {
    name: `poll-${names}`,
    env,
    pauseWhenHidden: true,
    interval: 1000,
    stop: stop.signal,
    async lead(signal, publish, schedule) {
      for (;;) {
        counter = sent.length + 1;
        sent.push([name, counter, clock.now()]);
        publish(counter, clock.now());
        schedule(clock.now() + wait(counter));
        await sleepIn(env, wait(counter), signal);
      }
    },
    deliver: (data) => void received.push(data),
    fail: (error) => {
      throw error;
    },
    onRole: (role) => void roles.push(role),
    onTakeover: (delay) => void roles.push(`takeover ${delay}`),
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
  return { clock, sent, open: (name: string, wait?: (n: number) => number) => tab(name, clock, locks, sent, wait) };
}

describe('shareAcrossTabs', () => {
  it('one tab leads, the others receive every body; closing the leader hands over on the cadence', async () => {
    const { clock, sent, open } = profile();
    const a = open('a');
    const b = open('b');
    const c = open('c');
    await settle(clock, () => sent.length === 1);
    await clock.advance(1000);
    await settle(clock, () => b.received.length === 2 && c.received.length === 2, 'two broadcasts');
    expect(a.roles).toEqual(['leader']);
    expect(b.roles).toEqual(['follower']);
    expect(a.received).toEqual([1, 2]);
    expect(b.received).toEqual([1, 2]);
    await clock.advance(300);
    a.stop.abort(); // the leading tab closes 300 ms into its interval
    await settle(clock, () => b.roles.length === 3, 'b takes over');
    expect(b.roles).toEqual(['follower', 'leader', 'takeover 700']);
    await clock.advance(700);
    await settle(clock, () => sent.length === 3);
    expect(sent).toEqual([
      ['a', 1, 0],
      ['a', 2, 1000],
      ['b', 3, 2000], // one interval after a's last request, as if nothing had happened
    ]);
    await settle(clock, () => c.received.length === 3);
    expect(c.received).toEqual([1, 2, 3]);
    b.stop.abort();
    c.stop.abort();
  });

  it("a new leader keeps the last leader's longer wait (a Retry-After, a backoff), not just one interval", async () => {
    const { clock, sent, open } = profile();
    const retryAfter = (n: number): number => (n === 2 ? 60_000 : 1000);
    const a = open('a', retryAfter);
    const b = open('b', retryAfter);
    await settle(clock, () => sent.length === 1);
    await clock.advance(1000);
    await settle(clock, () => b.received.length === 2, 'the second body, told to wait 60 s');
    await clock.advance(300);
    a.stop.abort();
    await settle(clock, () => b.roles.length === 3, 'b takes over');
    expect(b.roles).toEqual(['follower', 'leader', 'takeover 59700']);
    await clock.advance(59_699);
    expect(sent).toHaveLength(2);
    await clock.advance(1);
    await settle(clock, () => sent.length === 3);
    expect(sent[2]).toEqual(['b', 3, 61_000]);
    b.stop.abort();
  });

  it('a hidden leader steps down and a hidden tab never leads; it comes back to the queue when visible', async () => {
    const { clock, sent, open } = profile();
    const a = open('a');
    const b = open('b');
    await settle(clock, () => sent.length === 1);
    b.hidden.set(true); // b leaves the queue
    a.hidden.set(true); // a steps down: nobody visible, nobody polls
    await clock.advance(5000);
    expect(sent.map(([who]) => who)).toEqual(['a']);
    b.hidden.set(false);
    await settle(clock, () => sent.length === 2, 'b leads once visible');
    expect(sent[1]![0]).toBe('b');
    a.hidden.set(false);
    await clock.advance(1000);
    await settle(clock, () => sent.length === 3);
    expect(sent.map(([who]) => who)).toEqual(['a', 'b', 'b']); // a queues behind b
    expect(a.received).toEqual([1, 2, 3]); // informed while hidden
    a.stop.abort();
    b.stop.abort();
  });
});
