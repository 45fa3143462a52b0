import { afterEach, describe, expect, it, vi } from 'vitest';
import { RESUBSCRIBE_PAUSE, subscriptions, type SubscriberLink } from '../../src/cluster/subscriptions.js';

// The subscriptions every adapter keeps (src/cluster/subscriptions.ts),
// over a scripted connection: whether it is ready, and how it answers each
// SUBSCRIBE, are the test's. subscriber.test.ts runs them over real
// clients and a real redis-server that comes and goes.

afterEach(() => {
  vi.useRealTimers();
});

type Deliver = (message: string) => void;

/** A scripted connection: `ready` and the answers (an Error: a refusal) are the test's; `asked` is what it was asked, in order. */
function scriptedLink(options: { ready?: boolean | undefined; onReady?: boolean } = {}) {
  const asked: string[] = [];
  const answers: Array<Error | undefined> = [];
  const readyListeners = new Set<() => void>();
  const delivers = new Map<string, Deliver>();
  const state = { ready: 'ready' in options ? options.ready : true, opened: 0, closed: undefined as ReadonlyMap<string, Deliver> | undefined };
  const link: SubscriberLink = {
    ready: () => state.ready,
    ...(options.onReady === false
      ? {}
      : {
          onReady: (listener: () => void) => {
            readyListeners.add(listener);
            return () => void readyListeners.delete(listener);
          },
        }),
    subscribe: async (channel, deliver) => {
      asked.push(`subscribe ${channel}`);
      const answer = answers.shift();
      if (answer) throw answer;
      delivers.set(channel, deliver);
    },
    unsubscribe: async (channel, deliver) => {
      asked.push(`unsubscribe ${channel}`);
      if (delivers.get(channel) === deliver) delivers.delete(channel);
    },
    close: async (subscribed) => void (state.closed = new Map(subscribed)),
  };
  return {
    state,
    asked,
    answers,
    open: (): SubscriberLink => ((state.opened += 1), link),
    /** The connection says it is ready. */
    becomeReady: (): void => {
      state.ready = true;
      for (const listener of [...readyListeners]) listener();
    },
    readyListeners: (): number => readyListeners.size,
    publish: (channel: string, message: string): void => delivers.get(channel)?.(message),
  };
}

const turns = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

describe('subscriptions()', () => {
  it('opens the connection on the first subscription, one SUBSCRIBE a channel, every listener hears its messages; the last one leaving unsubscribes', async () => {
    const s = scriptedLink();
    const subs = subscriptions(s.open);
    expect(s.state.opened).toBe(0);
    const heard: string[] = [];
    const a: Deliver = (m) => void heard.push(`a:${m}`);
    const b: Deliver = (m) => void heard.push(`b:${m}`);
    await subs.subscribe('ch', a);
    await subs.subscribe('ch', b);
    await subs.subscribe('other', a);
    expect([s.state.opened, s.asked]).toEqual([1, ['subscribe ch', 'subscribe other']]);
    s.publish('ch', 'one');
    expect(heard).toEqual(['a:one', 'b:one']);
    await subs.unsubscribe('ch', a);
    await subs.unsubscribe('ch', a);
    await subs.unsubscribe('nothing', a);
    s.publish('ch', 'two');
    expect(heard).toEqual(['a:one', 'b:one', 'b:two']);
    await subs.unsubscribe('ch', b);
    expect(s.asked).toEqual(['subscribe ch', 'subscribe other', 'unsubscribe ch']);
    await subs.close();
    expect([...s.state.closed!.keys()]).toEqual(['other']);
    // Closed: nothing more is asked, and a subscription resolves at once.
    await subs.subscribe('late', a);
    expect([s.state.opened, s.asked.length]).toEqual([1, 3]);
  });

  it('waits for a connection that is not ready, and subscribes when it says it is; a second listener waits for the same SUBSCRIBE', async () => {
    const s = scriptedLink({ ready: false });
    const subs = subscriptions(s.open);
    const made: string[] = [];
    void subs.subscribe('ch', () => undefined).then(() => made.push('first'));
    void subs.subscribe('ch', () => undefined).then(() => made.push('second'));
    await turns();
    expect([s.asked, made, s.readyListeners()]).toEqual([[], [], 1]);
    s.becomeReady();
    await turns();
    expect([s.asked, made, s.readyListeners()]).toEqual([['subscribe ch'], ['first', 'second'], 0]);
  });

  it('a SUBSCRIBE refused on a connection that is not ready is made again when it is; on one that says it is ready (or cannot say), a pause later', async () => {
    vi.useFakeTimers();
    const s = scriptedLink({ ready: false });
    const subs = subscriptions(s.open);
    s.state.ready = true;
    s.answers.push(new Error('Stream not writeable'));
    let made = false;
    void subs.subscribe('ch', () => undefined).then(() => (made = true));
    await turns();
    expect([s.asked, made]).toEqual([['subscribe ch'], false]);
    // Refused while it said it was ready: a pause.
    await vi.advanceTimersByTimeAsync(RESUBSCRIBE_PAUSE - 1);
    expect(s.asked).toHaveLength(1);
    s.answers.push(new Error('again'));
    // Refused again, and now it says it is not ready: the next try waits for it, not for a pause.
    s.state.ready = false;
    await vi.advanceTimersByTimeAsync(1);
    expect(s.asked).toEqual(['subscribe ch', 'subscribe ch']);
    await vi.advanceTimersByTimeAsync(RESUBSCRIBE_PAUSE * 3);
    expect([s.asked.length, made]).toEqual([2, false]);
    s.becomeReady();
    await turns();
    expect([s.asked.length, made]).toEqual([3, true]);
  });

  it('a connection that cannot say whether it is ready, and has no ready event: refused, it tries again after the pause', async () => {
    vi.useFakeTimers();
    const s = scriptedLink({ ready: undefined, onReady: false });
    const subs = subscriptions(s.open);
    s.answers.push(new Error('refused'));
    void subs.subscribe('ch', () => undefined);
    await turns();
    expect(s.asked).toEqual(['subscribe ch']);
    await vi.advanceTimersByTimeAsync(RESUBSCRIBE_PAUSE);
    expect(s.asked).toEqual(['subscribe ch', 'subscribe ch']);
    // Not ready, and no event to say when it is: it tries after a pause.
    const t = scriptedLink({ ready: false, onReady: false });
    void subscriptions(t.open).subscribe('ch', () => undefined);
    await turns();
    expect(t.asked).toEqual([]);
    await vi.advanceTimersByTimeAsync(RESUBSCRIBE_PAUSE - 1);
    expect(t.asked).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.asked).toEqual(['subscribe ch']);
  });

  it('a channel given up before its SUBSCRIBE was made is never subscribed; its caller is let go at once', async () => {
    const s = scriptedLink({ ready: false });
    const subs = subscriptions(s.open);
    const listener: Deliver = () => undefined;
    const made: string[] = [];
    void subs.subscribe('gone', listener).then(() => made.push('subscribe'));
    await turns();
    void subs.unsubscribe('gone', listener).then(() => made.push('unsubscribe'));
    await turns();
    expect(made).toEqual(['subscribe', 'unsubscribe']);
    s.becomeReady();
    await turns();
    expect(s.asked).toEqual([]);
  });

  it('changes are made one at a time: an unsubscribe asked while its SUBSCRIBE is out is made after it (its listener, taken off at once, hears nothing meanwhile)', async () => {
    const s = scriptedLink();
    const answers: Array<() => void> = [];
    const slow: SubscriberLink = { ...s.open(), subscribe: (channel) => (s.asked.push(`subscribe ${channel}`), new Promise<void>((resolve) => answers.push(resolve))) };
    const subs = subscriptions(() => slow);
    const listener: Deliver = () => undefined;
    const made: string[] = [];
    void subs.subscribe('a', listener).then(() => made.push('subscribe a'));
    await turns();
    void subs.unsubscribe('a', listener).then(() => made.push('unsubscribe a'));
    void subs.subscribe('b', listener).then(() => made.push('subscribe b'));
    await turns();
    // Both callers of `a` are let go (it is no longer wanted); the SUBSCRIBE out is not overtaken.
    expect([s.asked, made]).toEqual([['subscribe a'], ['subscribe a', 'unsubscribe a']]);
    answers.shift()!();
    await turns();
    expect(s.asked).toEqual(['subscribe a', 'subscribe b']);
    answers.shift()!();
    await turns(10);
    expect(s.asked).toEqual(['subscribe a', 'subscribe b', 'unsubscribe a']);
    expect(made).toEqual(['subscribe a', 'unsubscribe a', 'subscribe b']);
  });

  it('closed while a SUBSCRIBE is out: it is undone when it is made, and close lets every waiting caller go', async () => {
    const s = scriptedLink({ ready: false });
    const subs = subscriptions(s.open);
    let made = false;
    void subs.subscribe('ch', () => undefined).then(() => (made = true));
    await turns();
    await subs.close();
    expect([made, s.state.closed]).toEqual([true, new Map()]);
    s.becomeReady();
    await turns();
    expect(s.asked).toEqual([]);

    // A SUBSCRIBE sent, then closed before its answer: unsubscribed at once.
    let answer: () => void = () => undefined;
    const t = scriptedLink();
    const slow: SubscriberLink = { ...t.open(), subscribe: (channel) => (t.asked.push(`subscribe ${channel}`), new Promise<void>((resolve) => (answer = resolve))) };
    const slowSubs = subscriptions(() => slow);
    void slowSubs.subscribe('ch', () => undefined);
    await turns();
    await slowSubs.close();
    answer();
    await turns();
    expect(t.asked).toEqual(['subscribe ch', 'unsubscribe ch']);
  });

  it('a client that cannot make a connection (duplicate() throws): the caller is let go, and the next subscription tries again', async () => {
    const s = scriptedLink();
    let fail = true;
    const subs = subscriptions(() => {
      if (fail) throw new Error('no duplicate');
      return s.open();
    });
    await subs.subscribe('a', () => undefined);
    expect(s.asked).toEqual([]);
    fail = false;
    await subs.subscribe('b', () => undefined);
    expect(s.asked).toEqual(['subscribe a', 'subscribe b']);
  });
});
