import { describe, expect, it } from 'vitest';
import { createCluster, type ClusterRedis } from '../../src/cluster/index.js';

// cluster.budget()'s own bucket, over a scripted ClusterRedis (no server:
// each reply is the test's, so what the process assumes of the shared
// bucket and falls back on is exact). budget.test.ts runs it on a real Redis.

/** A ClusterRedis that answers each command with the next of `replies` (an Error: a failure), recording what was sent. */
function scripted(replies: Array<number[] | Error>) {
  const sent: string[][] = [];
  const redis: ClusterRedis = {
    send: async (args) => {
      sent.push([...args]);
      const reply = replies.shift();
      if (reply === undefined) throw new Error('no reply scripted');
      if (reply instanceof Error) throw reply;
      return reply;
    },
    subscribe: async () => undefined,
    unsubscribe: async () => undefined,
    close: async () => undefined,
  };
  return { redis, sent };
}

describe('cluster.budget() when Redis answers and when it fails', () => {
  it("withdraws at cost 0; a refusal says what was left; alone, it retries from its share of that (divided by the live processes); back, it tells Redis what it has", async () => {
    const down = new Error('ERR down');
    const { redis, sent } = scripted([[20, 1], [18, 2], [-13, 2], down, down, down, [1, 3], [0, 3], down, down, down]);
    const budget = createCluster({ redis, prefix: 'p:', recheck: 0 }).budget({ name: 'b', capacity: 20 });
    const got: boolean[] = [];
    got.push(await budget.withdraw(0)); // Redis: 20 left, 1 process
    got.push(await budget.withdraw(2)); // Redis: 18 left, 2 processes
    got.push(await budget.withdraw(5)); // Redis: refused, 12 left
    // Redis fails: its own bucket (18 after its withdrawal of 2) is cut to its share of the 12 it last saw: 12 / 2 processes.
    got.push(await budget.withdraw(1), await budget.withdraw(2), await budget.withdraw(4));
    expect(got).toEqual([true, true, false, true, true, false]);
    await budget.refund(); // Redis again: 1 left, 3 processes; its own bucket 3 + 1
    expect(await budget.withdraw(1)).toBe(true); // Redis: 0 left
    await expect(budget.refund()).resolves.toBeUndefined(); // Redis fails again: its share of 0, then the refund
    expect(await budget.withdraw(1)).toBe(true); // alone: the refunded token
    expect(await budget.withdraw(1)).toBe(false);
    // What each script was sent: KEYS (the bucket, its live processes), then capacity, cost or refund,
    // the tokens to assume when Redis has no bucket (alone: what is left of its share), its id, the live window.
    const id = sent[0]![8]!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const keys = ['2', 'p:budget:{b}', 'p:budget:{b}:live'];
    expect(sent.map((args) => args.slice(2))).toEqual(
      [
        ['20', '0', '20'],
        ['20', '2', '20'],
        ['20', '5', '20'],
        ['20', '1', '20'],
        ['20', '2', '5'],
        ['20', '4', '3'],
        ['20', '1', '3'],
        ['20', '1', '20'],
        ['20', '1', '20'],
        ['20', '1', '1'],
        ['20', '1', '0'],
      ].map((args) => [...keys, ...args, id, '60000']),
    );
  });

  it('refunds made alone are kept through the faults that follow: the cut to what the shared bucket had is made once, when it falls back', async () => {
    const down = new Error('ERR down');
    const { redis } = scripted([[1, 1], down, down, down, down]);
    const budget = createCluster({ redis, recheck: 0 }).budget({ capacity: 10 });
    expect(await budget.withdraw(2)).toBe(true); // Redis: 1 left, this process alone
    expect(await budget.withdraw(1)).toBe(true); // alone: 8 cut to 1, then 0
    await budget.refund();
    await budget.refund();
    expect(await budget.withdraw(2)).toBe(true); // the two refunds
  });

  it('charges its own bucket with each shared withdrawal: after a flush refilled the shared bucket, alone it still has only what it would have alone', async () => {
    const down = new Error('ERR down');
    // Redis: 15, 10, 5 left; then flushed (a full bucket again: 15 after the withdrawal); then down.
    const { redis } = scripted([[15, 1], [10, 1], [5, 1], [15, 1], down, down]);
    const budget = createCluster({ redis, recheck: 0 }).budget({ capacity: 20 });
    const got: boolean[] = [];
    for (let i = 0; i < 4; i++) got.push(await budget.withdraw(5));
    // Alone, it would have spent its 20 already: the 15 it saw left in the flushed bucket are not its to spend.
    got.push(await budget.withdraw(5), await budget.withdraw(1));
    expect(got).toEqual([true, true, true, true, false, false]);
  });

  it('refuses options that are not an object, and a name that is not a string, with a TypeError naming them', () => {
    const { redis } = scripted([]);
    const c = createCluster({ redis });
    expect(() => c.budget(null as never)).toThrow(new TypeError('Expected `options` to be an object'));
    expect(() => c.budget('x' as never)).toThrow(new TypeError('Expected `options` to be an object'));
    expect(() => c.budget({ name: 1 as never })).toThrow(new TypeError('Expected `name` to be a non-empty string'));
    expect(() => createCluster(null as never)).toThrow(new TypeError('Expected `options` to be an object'));
    expect(() => createCluster('x' as never)).toThrow(new TypeError('Expected `options` to be an object'));
  });

  it('takes the bounds of deadline, lease and recheck as inclusive, and refuses infinite ones', () => {
    const { redis } = scripted([]);
    expect(() => createCluster({ redis, deadline: 1, lease: 3, recheck: 0 })).not.toThrow();
    expect(() => createCluster({ redis, deadline: Infinity })).toThrow(new TypeError('Expected `deadline` to be a finite number >= 1'));
  });
});
