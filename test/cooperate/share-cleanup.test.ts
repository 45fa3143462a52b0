import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns, share, shareTabs } from '../../src/cooperate/index.js';
import { PollGaveUpError } from '../../src/errors/poll-gave-up-error.js';
import { poll } from '../../src/poll/poll.js';
import { realTimersEnv } from '../helpers/env.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { until, virtualClock } from './helpers/virtual-clock.js';

/*
 * Cleanup after a shared poll that *finishes*, not only after one that is
 * aborted: a caller's `timeout` arms a timer of its own (a shared loop runs
 * without any caller's deadline), and a caller settled by its `isDone`, by
 * the latest body it gets on joining or by the loop's failure must stop it.
 * A timer left behind (600 s here) keeps Node alive after the poll resolved.
 */

const LONG = 600_000;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearCooldowns();
});

interface Tick {
  n: number;
}

/** Answers {n}, counting the requests. */
const counting = (): Promise<TestServer> => startServer((_req, res, _seen, index) => sendJson(res, 200, { n: index + 1 }));

describe.each([
  ['share()', share],
  ['shareTabs()', shareTabs],
])('%s with a timeout leaves no timer behind when the poll finishes', (_name, feature) => {
  it('two callers done by isDone, one after the other: each one stops its own timeout timer', async () => {
    server = await counting();
    const clock = virtualClock();
    const options = { use: [feature()], interval: 1000, timeout: LONG, env: clock.env() };
    const first = poll<Tick>(`${server.url}/job`, { ...options, isDone: (t) => t.n >= 1 });
    const second = poll<Tick>(`${server.url}/job`, { ...options, isDone: (t) => t.n >= 2 });
    expect(await first).toEqual({ n: 1 });
    // Left: the loop's interval wait and the second caller's timeout; the first caller's timeout is gone.
    await until(() => clock.delays.includes(1000), 'the interval wait');
    expect(clock.pending('env')).toBe(2);
    expect(clock.delays.filter((ms) => ms === LONG)).toHaveLength(2);
    await clock.advance(1000);
    expect(await second).toEqual({ n: 2 });
    expect(clock.pending('env')).toBe(0);
    expect(clock.pending()).toBe(0);
    expect(server.requests).toHaveLength(2);
  });

  it('a caller done by the latest body it gets on joining stops its timeout timer', async () => {
    server = await counting();
    const clock = virtualClock();
    const options = { use: [feature()], interval: 1000, timeout: LONG, env: clock.env() };
    const first = poll<Tick>(`${server.url}/job`, { ...options, isDone: (t) => t.n >= 2 });
    await until(() => server!.requests.length === 1 && clock.pending('env') === 2, 'the first answer');
    // Joins the running loop: its first body is the loop's latest, and it is done with it at once.
    expect(await poll<Tick>(`${server.url}/job`, { ...options, isDone: () => true })).toEqual({ n: 1 });
    expect(clock.pending('env')).toBe(2);
    await clock.advance(1000);
    expect(await first).toEqual({ n: 2 });
    expect(clock.pending('env')).toBe(0);
    expect(server.requests).toHaveLength(2);
  });

  it('callers rejected by the loop giving up stop their timeout timers', async () => {
    server = await startServer((_req, res) => sendJson(res, 500, {}));
    const clock = virtualClock();
    const options = { use: [feature()], retries: 0, timeout: LONG, env: clock.env() };
    const failed = await Promise.all([1, 2].map(() => poll(`${server!.url}/job`, options).catch((error: unknown) => error)));
    expect(failed.map((error) => error instanceof PollGaveUpError)).toEqual([true, true]);
    expect(clock.pending('env')).toBe(0);
  });
});

describe('share() with a timeout, on real timers', () => {
  it('leaves no live timer once every caller is done (nothing keeps Node alive)', async () => {
    server = await counting();
    const { env, delays, pending } = realTimersEnv();
    const options = { use: [share()], interval: 1, timeout: LONG, env };
    const done = await Promise.all([1, 2, 3].map((last) => poll<Tick>(`${server!.url}/job`, { ...options, isDone: (t) => t.n >= last })));
    expect(done).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(delays.filter((ms) => ms === LONG)).toHaveLength(3);
    expect(pending()).toBe(0);
  });
});
