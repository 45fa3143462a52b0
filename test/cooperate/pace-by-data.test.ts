import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns, paceByData, type PaceByDataOptions } from '../../src/cooperate/index.js';
import { requestFactory } from '../../src/http/request.js';
import { serverWait } from '../../src/http/server-wait.js';
import { normalizePollOptions } from '../../src/poll/normalize-poll-options.js';
import { poll, type PollEvent } from '../../src/index.js';
import { type PollAnswer } from '../../src/kit/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

// The 429 slowdown of the old adaptive interval moves into the core; its
// tests are listed in ./throttle.todo.md until they are re-added there.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearCooldowns();
});

type Signal = 'unchanged' | 'changed' | { retryAfter: string };
/** An answer as the loop tells it to its features: with the server's wait read once from its headers (`asked`). */
const told = (status: number, headers: Headers, at: number): PollAnswer => ({ status, headers, at, asked: serverWait(status, headers, at) });
/** The answer a signal stands for: a 304, a new body, or a 304 with a Retry-After (seconds). */
const answerOf = (signal: Signal, i: number): PollAnswer =>
  signal === 'changed' ? { ...told(200, new Headers(), 0), data: { i } } : told(304, new Headers(signal === 'unchanged' ? {} : { 'retry-after': signal.retryAfter }), 0);
/** The waits one loop's paceByData chooses after each answer, the loop's interval being 2000. */
const walk = (signals: Signal[], options: PaceByDataOptions = { min: 1000, max: 8000 }): number[] => {
  const hooks = paceByData(options).attach!({ request: requestFactory('http://127.0.0.1:7001/job', {}), settings: normalizePollOptions(undefined).settings })!;
  return signals.map((signal, i) => hooks.pace!(2000, answerOf(signal, i)));
};
const notModified = (res: Parameters<typeof sendJson>[0]): void => void res.writeHead(304).end();
const waits = (events: PollEvent[]): number[] => events.flatMap((e) => (e.type === 'wait' || e.type === 'retry' ? [e.delay] : []));

describe('the pacing rule (one loop of paceByData)', () => {
  it('multiplies while unchanged up to max, and a change returns to min', () => {
    expect(walk(['unchanged', 'unchanged', 'unchanged', 'unchanged', 'changed', 'unchanged'])).toEqual([2000, 4000, 8000, 8000, 1000, 2000]);
  });

  it('a Retry-After on a 2xx or 304 sets the wait within min..max, shorter or longer, and unchanged answers grow from there', () => {
    expect(walk([{ retryAfter: '5' }])).toEqual([5000]);
    expect(walk([{ retryAfter: '60' }])).toEqual([8000]);
    expect(walk([{ retryAfter: '0' }])).toEqual([1000]);
    // After three unchanged answers the wait had grown to 8000: a Retry-After of 3 s brings it back, and it grows from there.
    expect(walk(['unchanged', 'unchanged', 'unchanged', { retryAfter: '3' }, 'unchanged'])).toEqual([2000, 4000, 8000, 3000, 6000]);
  });

  it.each([
    [{ min: 0, max: 10 }, 'min'],
    [{ min: 10, max: 5 }, 'max'],
    [{ min: 10, max: 20, factor: 0.5 }, 'factor'],
    [{ max: 20 }, 'min'],
    ['1000', 'min'],
  ])('refuses %j naming %s', (value, name) => {
    expect(() => paceByData(value as PaceByDataOptions)).toThrow(new RegExp(`^Expected \`${name}\``));
  });

  it('fills the default factor: 2', () => {
    expect(walk(['unchanged', 'unchanged', 'unchanged'], { min: 500, max: 9000 })).toEqual([1000, 2000, 4000]);
  });
});

describe('poll with paceByData, against a real server', () => {
  it('304s stretch the wait up to max, a changed body returns it to min', async () => {
    server = await startServer(
      scripted([json(200, { status: 'a' }, { etag: '"1"' }), notModified, notModified, notModified, notModified, json(200, { status: 'b' }), json(200, { status: 'done' })]),
    );
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', use: [paceByData({ min: 1000, max: 8000 })], env: recordingEnv().env, onEvent: (e) => events.push(e) });
    expect(server.requests).toHaveLength(7);
    expect(waits(events)).toEqual([1000, 2000, 4000, 8000, 8000, 1000]);
  });

  it('an equal body counts as unchanged even without an ETag', async () => {
    const same = json(200, { status: 'running', progress: 10 });
    server = await startServer(scripted([same, same, same, json(200, { status: 'running', progress: 20 }), json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, {
      isDone: (j) => j.status === 'done',
      use: [paceByData({ min: 100, max: 10_000, factor: 3 })],
      env: recordingEnv().env,
      onEvent: (e) => events.push(e),
    });
    expect(waits(events)).toEqual([100, 300, 900, 100]);
  });

  it('a Retry-After on a 202 sets the next wait; the core holds it as a floor, above max too, with the spread, never past maxRetryAfter', async () => {
    server = await startServer(
      scripted([json(202, { status: 'queued' }, { 'retry-after': '5' }), json(202, { status: 'queued2' }, { 'retry-after': '600' }), json(200, { status: 'done' })]),
    );
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', use: [paceByData({ min: 1000, max: 60_000 })], env: recordingEnv().env, onEvent: (e) => events.push(e) });
    // recordingEnv draws 0.5: 5 s + 10 %; 600 s is above maxRetryAfter (300 s), a hard cap: spread below it,
    // over [300 s / 1.2, 300 s], halfway: 250 s + 25 s.
    expect(waits(events)).toEqual([5500, 275_000]);
  });

  it('an unchanged 202 with Retry-After: 1 waits 1 s (plus the spread) each time: the header sets the wait, the growth does not override it', async () => {
    const queued = json(202, { status: 'queued' }, { 'retry-after': '1' });
    server = await startServer(scripted([queued, queued, queued, queued, json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', use: [paceByData({ min: 500, max: 8000 })], env: recordingEnv().env, onEvent: (e) => events.push(e) });
    expect(waits(events)).toEqual([1100, 1100, 1100, 1100]);
  });

  it('a 429 with Retry-After waits at least that long: the wait after a failure is the retry decision\'s', async () => {
    server = await startServer(scripted([json(429, {}, { 'retry-after': '1' }), json(200, { status: 'r' }), json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, {
      isDone: (j) => j.status === 'done',
      interval: 400,
      use: [paceByData({ min: 400, max: 30_000 })],
      env: recordingEnv({ random: 0 }).env,
      onEvent: (e) => events.push(e),
    });
    // A wait of a second asked by the server paces the poll: not a failure.
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ delay: 1000, retryAfter: 1000, paced: true, failures: 0 });
    expect(waits(events)[0]).toBe(1000);
  });

  it("min is the poll's interval: the floor and base of the wait after a failure, whatever `interval` said", async () => {
    server = await startServer(scripted([json(500, {}), json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, {
      isDone: (j) => j.status === 'done',
      backoff: () => 50,
      use: [paceByData({ min: 400, max: 30_000 })],
      env: recordingEnv().env,
      onEvent: (e) => events.push(e),
    });
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ delay: 450, retryAfter: null });
  });

  it("a plain number keeps a fixed interval: 304s change nothing; a 2xx's Retry-After is a floor of the next wait", async () => {
    server = await startServer(scripted([json(202, { status: 'q' }, { 'retry-after': '9', etag: '"e"' }), notModified, notModified, json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv();
    await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', interval: 700, env });
    expect(delays).toEqual([9900, 700, 700]);
  });

  it('refuses a bad interval, a moved option or a bad flag with a TypeError naming it, sending nothing', async () => {
    server = await startServer(scripted([json(200, {})]));
    await expect(poll(server.url, { interval: { min: 5, max: 1 } as never })).rejects.toThrow(/^Expected `interval` to be a number: a range is `use: \[paceByData\(\{ min, max \}\)\]`/);
    await expect(poll(server.url, { interval: '1000' as never })).rejects.toThrow(/`interval`/);
    expect(() => paceByData({ min: 5, max: 1 })).toThrow(/`max`/);
    await expect(poll(server.url, { share: 'yes' } as never)).rejects.toThrow(/^Expected `share` to be given as `use: \[share\(\)\]`/);
    await expect(poll(server.url, { pauseWhenOffline: 1 as never })).rejects.toThrow(/`pauseWhenOffline`/);
    await expect(poll(server.url, { pauseWhenBlurred: 'no' } as never)).rejects.toThrow(/^Expected `pauseWhenBlurred` to be given as `use: \[pauseWhenBlurred\(\)\]`/);
    await expect(poll(server.url, { cooldown: null as never })).rejects.toThrow(/`cooldown`/);
    await expect(poll(server.url, { use: [null] as never })).rejects.toThrow(/`use`/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('the pacing rule at its edges', () => {
  /** The waits one loop of paceByData chooses after each of `answers`, the loop's settings being `settings`. */
  const paced = (answers: PollAnswer[], options: PaceByDataOptions = { min: 1000, max: 8000 }, maxRetryAfter?: number): number[] => {
    const { settings } = normalizePollOptions(maxRetryAfter === undefined ? undefined : { maxRetryAfter });
    const hooks = paceByData(options).attach!({ request: requestFactory('http://127.0.0.1:7001/job', {}), settings })!;
    return answers.map((answer) => hooks.pace!(2000, answer));
  };
  const ok = (data: unknown, headers: Record<string, string> = {}, at = 0): PollAnswer => ({ ...told(200, new Headers(headers), at), data });
  const notModified304: PollAnswer = told(304, new Headers(), 0);

  it('accepts min = max and factor 1 (the bounds are inclusive), and refuses infinite ones with the exact messages', () => {
    expect(paced([notModified304, notModified304], { min: 1000, max: 1000 })).toEqual([1000, 1000]);
    expect(paced([notModified304, notModified304], { min: 1000, max: 8000, factor: 1 })).toEqual([1000, 1000]);
    expect(() => paceByData({ min: Infinity, max: Infinity })).toThrow(new TypeError('Expected `min` to be a finite number > 0'));
    expect(() => paceByData({ min: 10, max: Infinity })).toThrow(new TypeError('Expected `max` to be a finite number >= `min`'));
    expect(() => paceByData({ min: 10, max: 20, factor: Infinity })).toThrow(new TypeError('Expected `factor` to be a finite number >= 1'));
  });

  it('a 304 keeps the body before it as the last one: the same body after it is unchanged', () => {
    expect(paced([ok({ v: 1 }), notModified304, ok({ v: 1 }), ok({ v: 2 })])).toEqual([1000, 2000, 4000, 1000]);
  });

  it('a body with no JSON (none, or one JSON cannot write) is always a change', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(paced([ok(undefined), ok(undefined), ok(circular), ok(circular)])).toEqual([1000, 1000, 1000, 1000]);
  });

  it("an HTTP-date Retry-After is measured from the answer's time, and capped by the poll's maxRetryAfter", () => {
    const at = Date.parse('2015-10-21T07:27:00Z');
    expect(paced([ok({ v: 1 }, { 'retry-after': 'Wed, 21 Oct 2015 07:27:05 GMT' }, at)])).toEqual([5000]);
    expect(paced([ok({ v: 1 }, { 'retry-after': '7' })], { min: 1000, max: 8000 }, 3000)).toEqual([3000]);
  });
});
