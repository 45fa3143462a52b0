import { afterEach, describe, expect, it } from 'vitest';
import { share } from '../../src/cooperate/index.js';
import { shareIdentity, type ShareIdentity } from '../../src/kit/index.js';
import { poll } from '../../src/index.js';
import { type PollFeature } from '../../src/kit/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';

// share() never hands a caller an answer it could not have got itself: two
// polls share a loop only when everything that changes what the server
// answers, who is asking, or what the caller makes of it is the same. The
// server answers each user (by Authorization) with its own counter, and
// counts what it received.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
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
/** A fetch wrapper that signs every request as `user`, as an app's auth wrapper does. */
const signedAs =
  (user: string): typeof fetch =>
  (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${user}` } });
const users = (s: TestServer): string[] => s.requests.map((r) => r.headers.authorization ?? 'nobody');

describe('share(): what makes two polls one loop', () => {
  it("two callers of one URL whose fetch wrappers sign as different users: two loops, each gets its own user's data", async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const [alice, bob] = await Promise.all([
      poll<Seen>(url, { use: [share()], fetch: signedAs('alice'), isDone: () => true }),
      poll<Seen>(url, { use: [share()], fetch: signedAs('bob'), isDone: () => true }),
    ]);
    expect(alice).toEqual({ user: 'Bearer alice', n: 1 });
    expect(bob).toEqual({ user: 'Bearer bob', n: 1 });
    expect(users(server).sort()).toEqual(['Bearer alice', 'Bearer bob']);
  });

  it('callers with the same fetch wrapper still share one loop: one request per round for all', async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const asAlice = signedAs('alice');
    const seen: number[][] = [[], [], []];
    const results = await Promise.all(
      [2, 2, 3].map((last, i) => poll<Seen>(url, { use: [share()], fetch: asAlice, interval: 30, isDone: (s) => s.n >= last, onUpdate: (s) => void seen[i]!.push(s.n) })),
    );
    expect(results.map((s) => s.n)).toEqual([2, 2, 3]);
    expect(seen).toEqual([[1, 2], [1, 2], [1, 2, 3]]);
    expect(users(server)).toEqual(['Bearer alice', 'Bearer alice', 'Bearer alice']);
  });

  it('different Authorization headers are two loops (headers are in the key); the same header shares', async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const as = (user: string): Promise<Seen> => poll<Seen>(url, { use: [share()], init: { headers: { Authorization: `Bearer ${user}` } }, isDone: () => true });
    expect(await Promise.all([as('alice'), as('bob'), as('alice')])).toEqual([
      { user: 'Bearer alice', n: 1 },
      { user: 'Bearer bob', n: 1 },
      { user: 'Bearer alice', n: 1 },
    ]);
    expect(users(server).sort()).toEqual(['Bearer alice', 'Bearer bob']);
  });

  it("different credentials modes are different loops (a cookie is sent or not); 'same-origin' given is the default", async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const modes: Array<RequestCredentials | undefined> = ['include', 'omit', undefined, 'same-origin', 'include'];
    await Promise.all(modes.map((credentials) => poll<Seen>(url, { use: [share()], init: credentials ? { credentials } : {}, isDone: () => true })));
    expect(server.requests).toHaveLength(3);
    // A Request input's own mode counts as init's would.
    await Promise.all([
      poll<Seen>(new Request(url, { credentials: 'omit' }), { use: [share()], isDone: () => true }),
      poll<Seen>(url, { use: [share()], isDone: () => true }),
    ]);
    expect(server.requests).toHaveLength(5);
  });

  it("two parse functions are two loops: each caller gets what its own parse makes of the answer", async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const [json, text] = await Promise.all([
      poll<unknown>(url, { use: [share()], isDone: () => true }),
      poll<unknown>(url, { use: [share()], parse: (r) => r.text(), isDone: () => true }),
    ]);
    expect(json).toEqual({ user: 'nobody', n: 1 });
    expect(text).toBe('{"user":"nobody","n":2}');
  });

  it("two dispatchers (Node's init.dispatcher) are two loops; the same one shares", async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const sentWith: unknown[] = [];
    // Records the dispatcher each request went with, and sends it with Node's own.
    const recording: typeof fetch = (input, init) => {
      const { dispatcher, ...rest } = init as RequestInit & { dispatcher?: unknown };
      sentWith.push(dispatcher);
      return fetch(input, rest);
    };
    const [a, b] = [{ agent: 'a' }, { agent: 'b' }];
    const via = (dispatcher: object): Promise<Seen> => poll<Seen>(url, { use: [share()], fetch: recording, init: { dispatcher } as RequestInit, isDone: () => true });
    await Promise.all([via(a), via(b), via(a)]);
    expect(sentWith).toHaveLength(2);
    expect(sentWith).toContain(a);
    expect(sentWith).toContain(b);
  });

  it('a feature after share() that runs the loop (it may sign the request) is compared too', async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const signing = (user: string): PollFeature => ({ run: (call, next) => next({ ...call, settings: { ...call.settings, fetch: signedAs(user) } }) });
    const [alice, bob] = await Promise.all([
      poll<Seen>(url, { use: [share(), signing('alice')], isDone: () => true }),
      poll<Seen>(url, { use: [share(), signing('bob')], isDone: () => true }),
    ]);
    expect([alice.user, bob.user]).toEqual(['Bearer alice', 'Bearer bob']);
  });

  it('key: callers whose wrappers are made per call (never the same function) share under one key', async () => {
    server = await perUser();
    const url = `${server.url}/me`;
    const wrapped = (): typeof fetch => (input, init) => signedAs('alice')(input, init);
    await Promise.all([0, 1].map(() => poll<Seen>(url, { use: [share()], fetch: wrapped(), isDone: () => true })));
    expect(server.requests).toHaveLength(2);
    const keys: string[] = [];
    const byUser = share({ key: (call) => (keys.push(call.request.url), 'user alice') });
    const seen = await Promise.all([0, 1].map(() => poll<Seen>(url, { use: [byUser], fetch: wrapped(), isDone: () => true })));
    expect(seen).toEqual([{ user: 'Bearer alice', n: 3 }, { user: 'Bearer alice', n: 3 }]);
    expect(server.requests).toHaveLength(3);
    expect(keys).toEqual([url, url]);
    // A key never merges what is compared by value: another header is another loop.
    await Promise.all([
      poll<Seen>(url, { use: [share({ key: 'k' })], isDone: () => true }),
      poll<Seen>(url, { use: [share({ key: 'k' })], init: { headers: { authorization: 'Bearer bob' } }, isDone: () => true }),
    ]);
    expect(server.requests).toHaveLength(5);
  });

  it('refuses a bad key with a TypeError naming it, and a key function that gives no key', async () => {
    expect(() => share({ key: '' })).toThrow(new TypeError('Expected `key` to be a non-empty string or a function'));
    expect(() => share({ key: 42 as never })).toThrow(new TypeError('Expected `key` to be a non-empty string or a function'));
    expect(() => share('key' as never)).toThrow(new TypeError('Expected `options` to be an object'));
    await expect(poll('http://127.0.0.1:9/x', { use: [share({ key: () => '' })] })).rejects.toThrow(
      new TypeError('Expected `key` to be a non-empty string, or a function that returns one'),
    );
  });
});

describe('shareIdentity(), the key itself', () => {
  /** The identity share() would give a poll of `url` with `options`, and what it was sent with. */
  const identityOf = async (url: string, options: Parameters<typeof poll>[1] = {}, key?: string): Promise<ShareIdentity | undefined> => {
    let found: ShareIdentity | undefined;
    const spy: PollFeature = { run: (call) => ((found = shareIdentity(call, { key, feature: spy })), Promise.resolve(undefined as never)) };
    await poll(url, { ...options, use: [spy, ...(options.use ?? [])] });
    return found;
  };
  const url = 'http://127.0.0.1:9/jobs?id=1';

  it('is the request, then what of init fetch reads (not its default), then the key or the identity of what is not the default', async () => {
    expect(await identityOf(url)).toEqual({ key: `GET ${url}\n\n` });
    expect(await identityOf(url, { init: { credentials: 'same-origin', mode: 'cors', cache: 'default', redirect: 'follow', referrer: '/a', keepalive: true } })).toEqual({
      key: `GET ${url}\n\n`,
    });
    expect(await identityOf(url, { init: { credentials: 'include', redirect: 'manual', headers: { 'X-A': '1' }, method: 'POST', body: 'q' } })).toEqual({
      key: `POST ${url}\nx-a: 1\n@"credentials" "include"\n@"redirect" "manual"\n\nsq`,
    });
    // Another field of plain value (one of a runtime's own fetch: Bun's `verbose`) is compared by value.
    expect(await identityOf(url, { init: { verbose: true } as RequestInit })).toEqual({ key: `GET ${url}\n@"init.verbose" true\n\n` });
    // With a key, what cannot be compared is left to it.
    expect(await identityOf(url, { fetch: signedAs('alice'), parse: (r) => r.text() }, 'alice')).toEqual({ key: `GET ${url}\n@key "alice"\n\n` });
    expect(await identityOf(url, { init: { body: new Blob(['x']), method: 'POST' } })).toBeUndefined();
  });

  it('names the first part that means nothing beyond this realm: fetch, parse, an init object, a later feature', async () => {
    const asAlice = signedAs('alice');
    const [first, again] = [await identityOf(url, { fetch: asAlice }), await identityOf(url, { fetch: asAlice })];
    expect(first).toEqual({ key: expect.stringMatching(/^GET \S+\n@"fetch" #\d+\n\n$/) as string, local: 'fetch' });
    expect(again).toEqual(first);
    expect((await identityOf(url, { fetch: signedAs('alice') }))!.key).not.toBe(first!.key);
    expect((await identityOf(url, { parse: (r) => r.text() }))!.local).toBe('parse');
    expect((await identityOf(url, { init: { dispatcher: {} } as RequestInit }))!.local).toBe('init.dispatcher');
    expect((await identityOf(url, { use: [{ run: (call, next) => next(call) }] }))!.local).toBe('use');
    // Features that only join the loop (hooks) change nothing of the request.
    expect(await identityOf(url, { use: [{ attach: () => undefined }] })).toEqual({ key: `GET ${url}\n\n` });
    // The global fetch, given or not, is the default.
    expect(await identityOf(url, { fetch: globalThis.fetch })).toEqual({ key: `GET ${url}\n\n` });
  });
});
