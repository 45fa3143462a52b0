import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClusterRedis, ClusterStatus } from '../../src/cluster/index.js';
import { withDeadline } from '../../src/cluster/deadline.js';
import * as scripts from '../../src/cluster/scripts.js';
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

describe('clusterStore(): a Redis that refuses writes (maxmemory with noeviction, a replica, a failed save)', () => {
  /** A store whose next reply is `next` (an Error: a failure), and what onStatus heard. */
  function refusing() {
    let next: unknown = 'OK';
    const r = scripted(async () => {
      if (next instanceof Error) throw next;
      return next;
    });
    const heard: string[] = [];
    const store = clusterStore(r.redis, { deadline: 1000, recheck: 0, onStatus: (s) => heard.push(s.type) });
    return { store, heard, answer: (reply: unknown) => void (next = reply) };
  }

  it.each(['OOM command not allowed when used memory > maxmemory', 'ReplyError: OOM command not allowed', 'READONLY You can\'t write against a read only replica.', 'MISCONF Redis is configured to save RDB snapshots', 'NOREPLICAS Not enough good replicas to write.'])(
    "after '%s', a read that succeeds brings nothing back; a write does, once",
    async (message) => {
      const { store, heard, answer } = refusing();
      answer(new Error(message));
      expect(await store.run(scripts.COOL, ['k'], [1, 'id'])).toBe(FAULT);
      answer(['-2', '', '-2', '']);
      expect(await store.run(scripts.COOLDOWNS, ['a', 'b'], [])).toEqual(['-2', '', '-2', '']);
      expect([heard, store.connected]).toEqual([['local'], false]);
      answer(1);
      expect(await store.run(scripts.COOL, ['k'], [1, 'id'])).toBe(1);
      expect([heard, store.connected]).toEqual([['local', 'connected'], true]);
    },
  );

  it('any other failure: the first success of any script brings `connected` back', async () => {
    const { store, heard, answer } = refusing();
    answer(new Error('ERR something else (not OOM)'));
    expect(await store.run(scripts.COOL, ['k'], [1, 'id'])).toBe(FAULT);
    answer(['0', '', '0', '0']);
    await store.run(scripts.LATEST, ['k'], []);
    expect(heard).toEqual(['local', 'connected']);
  });

  it.each([
    ['ACQUIRE', [1, -2, '0', 900, '0', '1'], true],
    ['ACQUIRE', [0, -2, '0', 900, '0', '1'], false],
    ['ACQUIRE', 'not a list', false],
    ['PUBLISH', '1700000000000001', true],
    ['PUBLISH', 0, false],
    ['WAITING', 1, true],
    ['WAITING', 2, false],
    ['WAITING', 0, false],
    ['COOL', 1, true],
    ['COOL', 0, false],
    ['RELEASE', 1, false],
    ['LATEST', ['1', '{}', '0', '2'], false],
    ['COOLDOWNS', ['-2', '', '-2', ''], false],
    ['WITHDRAW', [5, 1], true],
    ['REFUND', [5, 1], true],
  ] as const)('which replies show a write: %s answering %j, %s', async (name, reply, writes) => {
    const { store, heard, answer } = refusing();
    answer(new Error('OOM command not allowed'));
    await store.run(scripts.COOL, ['k'], [1, 'id']);
    answer(reply);
    await store.run(scripts[name], ['k'], []);
    expect(heard).toEqual(writes ? ['local', 'connected'] : ['local']);
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
