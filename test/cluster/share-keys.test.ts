import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { shareKey } from '../../src/kit/index.js';
import { requestFactory } from '../../src/http/request.js';
import { poll, type PollEvent } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { redisForTests } from './helpers/clusters.js';

// cluster.share() with a real redis-server: two clusters stand for two
// processes. A poll whose answer depends on what cannot be compared across
// processes (a fetch of its own) is one job across them only under a key
// that says so; the job's name in Redis is a hash, with no URL, header or
// key in it; and a pending wait read from Redis is taken only as far as the
// reader would wait of its own.

const { run, redis, cluster } = redisForTests();

let server: TestServer | undefined;
let admin: ReturnType<typeof createClient> | undefined;
afterEach(async () => {
  await server?.close();
  await admin?.quit();
  server = undefined;
  admin = undefined;
});

interface Seen {
  user: string;
  n: number;
}
/** Answers `{ user, n }`: the Authorization it got ('nobody' without one) and that user's request count. */
const perUser = (): Promise<TestServer> => {
  const counts = new Map<string, number>();
  return startServer((req, res) => {
    const user = req.headers.authorization ?? 'nobody';
    counts.set(user, (counts.get(user) ?? 0) + 1);
    sendJson(res, 200, { user, n: counts.get(user) });
  });
};
/** A fetch wrapper that signs every request as `user`: each process makes its own. */
const signedAs =
  (user: string): typeof fetch =>
  (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${user}` } });
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const roles = (events: PollEvent[]): string[] => events.flatMap((e) => (e.type === 'share' ? [e.role === 'local' ? `local:${e.reason}` : e.role] : []));
const keysOf = async (prefix: string): Promise<string[]> => {
  admin ??= (await createClient({ url: redis().url }).on('error', () => undefined).connect()) as ReturnType<typeof createClient>;
  return (await admin.keys(`${prefix}*`)).sort();
};

describe.skipIf(!run)('cluster.share(): one job only for polls that would get the same answer', () => {
  it("a fetch of its own and no key: each process polls for itself (a 'local' share event says why), nothing in Redis", async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const [a, b] = [await cluster(), await cluster()];
    const events: PollEvent[][] = [[], []];
    const got: Seen[][] = [[], []];
    await Promise.all(
      [a, b].map((c, i) =>
        poll<Seen>(url, {
          use: [c.cluster.share()],
          fetch: signedAs('alice'),
          interval: 100,
          isDone: () => got[i]!.length === 3,
          onUpdate: (s) => void got[i]!.push(s),
          onEvent: (e) => events[i]!.push(e),
        }),
      ),
    );
    expect(events.map(roles)).toEqual([['local:fetch'], ['local:fetch']]);
    expect(events.map((list) => list.filter((e) => e.type === 'request').length)).toEqual([3, 3]);
    expect(server.requests).toHaveLength(6);
    expect(await keysOf(a.prefix)).toEqual([]);
  });

  it('with a key saying the fetch is the same in every process: one leader polls for both; the job is named by a hash', async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const [a, b] = [await cluster(), await cluster()];
    const events: PollEvent[][] = [[], []];
    const results = await Promise.all(
      [a, b].map((c, i) =>
        poll<Seen>(url, { use: [c.cluster.share({ key: 'user alice' })], fetch: signedAs('alice'), interval: 100, isDone: (s) => s.n >= 3, onEvent: (e) => events[i]!.push(e) }),
      ),
    );
    expect(results).toEqual([
      { user: 'Bearer alice', n: 3 },
      { user: 'Bearer alice', n: 3 },
    ]);
    expect(server.requests).toHaveLength(3);
    expect(events.map(roles).sort()).toEqual([['follower'], ['leader']]);
    // The request and the key are hashed into the job's name: none of them is in Redis's keys.
    const keys = await keysOf(a.prefix);
    expect(keys).toContain(`${a.prefix}job:{${sha256(shareKey(requestFactory(url, {}), '\n@key "user alice"')!)}}:last`);
    for (const key of keys) expect(key).toMatch(new RegExp(`^${a.prefix}job:\\{[0-9a-f]{64}\\}:(last|next)$`));
  });

  it("two users' Authorization headers are two jobs: each process gets its own user's data", async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const [a, b] = [await cluster(), await cluster()];
    const as = (c: typeof a, user: string): Promise<Seen> =>
      poll<Seen>(url, { use: [c.cluster.share()], init: { headers: { authorization: `Bearer ${user}` } }, interval: 100, isDone: (s) => s.n >= 2 });
    expect(await Promise.all([as(a, 'alice'), as(b, 'bob')])).toEqual([
      { user: 'Bearer alice', n: 2 },
      { user: 'Bearer bob', n: 2 },
    ]);
    expect(server.requests).toHaveLength(4);
  });

  it("a pending wait written into Redis is taken only up to the reader's maxRetryAfter (or interval): it cannot stop the fleet", async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const { cluster: c, prefix } = await cluster();
    await keysOf(prefix);
    // Someone (a bug, an attacker with Redis access) says the job's next request is due in 31 years.
    await admin!.set(`${prefix}job:{${sha256(shareKey(requestFactory(url, {}))!)}}:next`, '1', { PX: 1e12 });
    const events: PollEvent[] = [];
    const seen = await poll<Seen>(url, { use: [c.share()], interval: 100, maxRetryAfter: 400, timeout: 5000, isDone: () => true, onEvent: (e) => events.push(e) });
    expect(seen).toEqual({ user: 'nobody', n: 1 });
    // The loop starts with the capped wait (then the role is told), and sends once it is over.
    expect(events.slice(0, 3)).toEqual([{ type: 'wait', delay: 400, at: expect.any(Number) as number }, { type: 'share', role: 'leader' }, { type: 'request', attempt: 1, conditional: false }]);
  });

  it('refuses a bad key with a TypeError naming it', async () => {
    const { cluster: c } = await cluster();
    expect(() => c.share({ key: '' })).toThrow(new TypeError('Expected `key` to be a non-empty string or a function'));
    expect(() => c.share({ key: 7 as never })).toThrow(new TypeError('Expected `key` to be a non-empty string or a function'));
  });
});
