import { describe, expect, it } from 'vitest';
import { createCluster, type ClusterRedis } from '../../src/cluster/index.js';

// cluster.budget()'s own bucket, over a scripted ClusterRedis (no server:
// each reply is the test's, so what the process assumes of the shared
// bucket and falls back on is exact). budget.test.ts runs it on a real Redis.

/** A ClusterRedis that answers each command with the next of `replies` (an Error: a failure), recording what was sent. */
function scripted(replies: Array<string | Error>) {
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
  it("withdraws at cost 0; a refusal says what was left; alone, it retries from its own bucket cut to that; back, it tells Redis what it has", async () => {
    const down = new Error('ERR down');
    const { redis, sent } = scripted(['10', '8', '-4', down, down, down, '1', '0', down, down]);
    const budget = createCluster({ redis, prefix: 'p:', recheck: 0 }).budget({ name: 'b', capacity: 10 });
    const got: boolean[] = [];
    got.push(await budget.withdraw(0)); // Redis: 10 left
    got.push(await budget.withdraw(2)); // Redis: 8 left
    got.push(await budget.withdraw(5)); // Redis: refused, 3 left
    // Redis fails: its own bucket (8 after its withdrawal of 2) is cut to the 3 it last saw.
    got.push(await budget.withdraw(1), await budget.withdraw(2), await budget.withdraw(1));
    expect(got).toEqual([true, true, false, true, true, false]);
    await budget.refund(); // Redis again: 1 left; its own bucket 0 + 1
    expect(await budget.withdraw(1)).toBe(true); // Redis: 0 left
    await expect(budget.refund()).resolves.toBeUndefined(); // Redis fails again
    expect(await budget.withdraw(1)).toBe(true); // alone: the refunded token
    // What each script was sent: KEYS, then capacity, cost or refund, and the tokens to assume when Redis has no bucket.
    expect(sent.map((args) => args.slice(2))).toEqual([
      ['1', 'p:budget:{b}', '10', '0', '10'],
      ['1', 'p:budget:{b}', '10', '2', '10'],
      ['1', 'p:budget:{b}', '10', '5', '10'],
      ['1', 'p:budget:{b}', '10', '1', '10'],
      ['1', 'p:budget:{b}', '10', '2', '2'],
      ['1', 'p:budget:{b}', '10', '1', '0'],
      ['1', 'p:budget:{b}', '10', '1', '0'],
      ['1', 'p:budget:{b}', '10', '1', '10'],
      ['1', 'p:budget:{b}', '10', '1', '10'],
      ['1', 'p:budget:{b}', '10', '1', '1'],
    ]);
  });

  it('refunds made alone are kept through the faults that follow: the cut to what the shared bucket had is made once, when it falls back', async () => {
    const down = new Error('ERR down');
    const { redis } = scripted(['1', down, down, down, down]);
    const budget = createCluster({ redis, recheck: 0 }).budget({ capacity: 10 });
    expect(await budget.withdraw(2)).toBe(true); // Redis: 1 left
    expect(await budget.withdraw(1)).toBe(true); // alone: 8 cut to 1, then 0
    await budget.refund();
    await budget.refund();
    expect(await budget.withdraw(2)).toBe(true); // the two refunds
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
