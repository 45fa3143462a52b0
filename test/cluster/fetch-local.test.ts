import { afterEach, describe, expect, it, vi } from 'vitest';
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

  it("waits out another process's cooldown once per fetch, even capped by maxRetryAfter: the next send through it goes at once", async () => {
    // Another process's 503 cooled the origin for a minute (id 'x'): far past this fetch's cap.
    const redis: ClusterRedis = { ...clear().redis, send: async () => ['60000', 'x', '-2', ''] };
    const armed: number[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => (armed.push(ms ?? 0), real(callback, ms))) as typeof setTimeout);
    let sends = 0;
    const mock = async (): Promise<Response> => (sends++, new Response('ok'));
    const send = createCluster({ redis, deadline: 5000 }).fetch({ maxRetryAfter: 300, fetch: mock });
    await send('https://api.example/v1/jobs');
    // The cooldown's wait, capped (the deadlines, 5 s, apart).
    const waits = (): number[] => armed.filter((ms) => ms > 0 && ms !== 5000);
    expect(waits()).toHaveLength(1);
    expect(waits()[0]).toBeLessThanOrEqual(300);
    // The same cooldown (still a minute in Redis), through the same fetch: not waited again.
    await send('https://api.example/v1/jobs');
    await send('https://api.example/v1/jobs');
    expect([sends, waits().length]).toEqual([3, 1]);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});
