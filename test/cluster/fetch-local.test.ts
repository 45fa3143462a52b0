import { describe, expect, it } from 'vitest';
import { createCluster, type ClusterRedis } from '../../src/cluster/index.js';

// cluster.fetch()'s options and its answer check, over a scripted
// ClusterRedis that reports no cooldown (no server); cooldown.test.ts runs
// it on a real Redis.

/** A ClusterRedis that reports no cooldown to every script, recording what was sent. */
function clear() {
  const sent: string[][] = [];
  const redis: ClusterRedis = {
    send: async (args) => (sent.push([...args]), ['-2', '', '-2', '']),
    subscribe: async () => undefined,
    unsubscribe: async () => undefined,
    close: async () => undefined,
  };
  return { redis, sent };
}

describe('cluster.fetch()', () => {
  it('refuses options that are not an object, and a fetch that is not a function, with a TypeError naming them', () => {
    const cluster = createCluster({ redis: clear().redis });
    expect(() => cluster.fetch(null as never)).toThrow(new TypeError('Expected `options` to be an object'));
    expect(() => cluster.fetch('x' as never)).toThrow(new TypeError('Expected `options` to be an object'));
    expect(() => cluster.fetch({ fetch: 'x' as never })).toThrow(new TypeError('Expected `fetch` to be a function'));
    expect(() => cluster.fetch({ fetch: undefined })).not.toThrow();
  });

  it("sends with the fetch it was given, and hands back whatever that answers: one that is no Response (a mock's undefined) announces nothing", async () => {
    const { redis, sent } = clear();
    const cluster = createCluster({ redis, prefix: 'p:' });
    const inputs: unknown[] = [];
    const mock = async (input: string | URL | Request): Promise<Response> => (inputs.push(input), undefined as unknown as Response);
    await expect(cluster.fetch({ fetch: mock })('https://api.example/v1/jobs')).resolves.toBeUndefined();
    expect(inputs).toEqual(['https://api.example/v1/jobs']);
    // One script only: the COOLDOWNS asked before sending.
    expect(sent).toHaveLength(1);
    expect(sent[0]!.slice(2, 3)).toEqual(['2']);
  });
});
