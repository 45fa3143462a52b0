import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClusterRedis, ClusterStatus } from '../../src/cluster/index.js';
import { withDeadline } from '../../src/cluster/deadline.js';
import { ACQUIRE } from '../../src/cluster/scripts.js';
import { clusterStore, FAULT } from '../../src/cluster/store.js';

// The store and the deadline on their own, over a scripted
// ClusterRedis (no server: what is tested is what pollite sends and does
// with each answer or failure; test/cluster/*.test.ts run a real Redis).

afterEach(() => {
  vi.useRealTimers();
});

/** A ClusterRedis whose `send` answers with `answer`, recording every command, subscription and watcher. */
function scripted(answer: (args: readonly string[]) => Promise<unknown> = async () => 'OK') {
  const sent: string[][] = [];
  const subscribed: string[] = [];
  const unsubscribed: string[] = [];
  let watcher: ((ready: boolean) => void) | undefined;
  let closed = 0;
  const redis: ClusterRedis = {
    send: (args) => (sent.push([...args]), answer(args)),
    subscribe: async (channel) => void subscribed.push(channel),
    unsubscribe: async (channel) => void unsubscribed.push(channel),
    watch: (listener) => ((watcher = listener), () => (watcher = undefined)),
    close: async () => void (closed += 1),
  };
  return { redis, sent, subscribed, unsubscribed, watch: (ready: boolean) => watcher?.(ready), closed: () => closed };
}

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

describe('clusterStore()', () => {
  it('sends a script whole once, then by its SHA-1 (lower-case hex, two digits a byte)', async () => {
    const r = scripted();
    const store = clusterStore(r.redis, { deadline: 1000, recheck: 1000 });
    expect(await store.run(ACQUIRE, ['k'], [1])).toBe('OK');
    expect(await store.run(ACQUIRE, ['k'], [2])).toBe('OK');
    expect(r.sent).toEqual([
      ['EVAL', ACQUIRE.source, '1', 'k', '1'],
      ['EVALSHA', sha1(ACQUIRE.source), '1', 'k', '2'],
    ]);
  });

  it('an EVALSHA that fails for another reason than NOSCRIPT is a fault, not sent again whole', async () => {
    let calls = 0;
    const r = scripted(async () => {
      calls += 1;
      if (calls === 2) throw new Error('ERR busy');
      return 'OK';
    });
    const heard: ClusterStatus[] = [];
    const script = { source: 'return 1' };
    const store = clusterStore(r.redis, { deadline: 1000, recheck: 0, onStatus: (s) => heard.push(s) });
    await store.run(script, [], []);
    expect(await store.run(script, [], [])).toBe(FAULT);
    expect(r.sent.map((args) => args[0])).toEqual(['EVAL', 'EVALSHA']);
    expect(heard).toEqual([{ type: 'local', error: new Error('ERR busy') }]);
  });

  it('a dropped connection is a fault at once; a ready one is tried at once, before the recheck, and every job is told', async () => {
    const r = scripted();
    const heard: ClusterStatus[] = [];
    const store = clusterStore(r.redis, { deadline: 1000, recheck: 60_000, onStatus: (s) => heard.push(s) });
    let changes = 0;
    store.onChange(() => void (changes += 1));
    r.watch(false);
    expect(heard).toEqual([{ type: 'local', error: new Error('Redis connection lost') }]);
    expect(store.connected).toBe(false);
    expect(changes).toBe(1);
    expect(await store.run({ source: 'return 1' }, [], [])).toBe(FAULT);
    expect(r.sent).toEqual([]);
    r.watch(true);
    expect(changes).toBe(2);
    expect(await store.run({ source: 'return 1' }, [], [])).toBe('OK');
    expect(heard.map((s) => s.type)).toEqual(['local', 'connected']);
  });

  it('with recheck 0, the operation right after a fault tries Redis again, within the same millisecond', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let calls = 0;
    const r = scripted(async () => {
      calls += 1;
      if (calls === 1) throw new Error('ERR down');
      return 'OK';
    });
    const store = clusterStore(r.redis, { deadline: 1000, recheck: 0 });
    expect(await store.run({ source: 'return 1' }, [], [])).toBe(FAULT);
    expect(await store.run({ source: 'return 1' }, [], [])).toBe('OK');
  });

  it('subscribes and unsubscribes through the adapter; a listener taken off onChange is not called; closed, it sends and subscribes nothing', async () => {
    const r = scripted();
    const store = clusterStore(r.redis, { deadline: 1000, recheck: 0 });
    const off = store.subscribe('c1', () => undefined);
    expect(r.subscribed).toEqual(['c1']);
    off();
    expect(r.unsubscribed).toEqual(['c1']);
    let changes = 0;
    const remove = store.onChange(() => void (changes += 1));
    remove();
    r.watch(false);
    expect(changes).toBe(0);
    await store.close();
    expect(r.closed()).toBe(1);
    expect(store.connected).toBe(false);
    store.subscribe('c2', () => undefined);
    expect(r.subscribed).toEqual(['c1']);
    r.watch(true);
    expect(await store.run({ source: 'return 1' }, [], [])).toBe(FAULT);
    expect(r.sent).toEqual([]);
  });
});

describe('withDeadline()', () => {
  it('rejects with a TimeoutError naming the deadline; settled either way, it leaves no timer', async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    const never = withDeadline((expired) => ((signal = expired), new Promise(() => undefined)), 20);
    const caught = never.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(20);
    // One more turn for an answer that may be waiting unread: not expired yet.
    expect(signal!.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = (await caught) as DOMException;
    expect([error.name, error.message]).toEqual(['TimeoutError', 'Redis did not answer within 20 ms']);
    // The work is told: what it has not sent yet, it never sends.
    expect([signal!.aborted, signal!.reason]).toEqual([true, error]);
    expect(vi.getTimerCount()).toBe(0);
    expect(await withDeadline(() => Promise.resolve(7), 20)).toBe(7);
    expect(vi.getTimerCount()).toBe(0);
  });
});
