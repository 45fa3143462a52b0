import { afterEach, describe, expect, it } from 'vitest';
import { checkInterval, nextPace, paceWait, startPace, type Pace, type PaceSignal, type PaceState } from '../../src/cooperate/adaptive-interval.js';
import { clearCooldowns } from '../../src/cooperate/origin-cooldown.js';
import { poll, type PollEvent } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearCooldowns();
});

const pace: Pace = { min: 1000, max: 8000, factor: 2, step: 100 };
const walk = (signals: PaceSignal[], random = 0): number[] => {
  let state = startPace(pace);
  return signals.map((signal) => paceWait((state = nextPace(state, pace, signal, random)), pace));
};
const json = (status: number, body: unknown, headers?: Record<string, string>) => (res: Parameters<typeof sendJson>[0]) =>
  sendJson(res, status, body, headers);
const notModified = (res: Parameters<typeof sendJson>[0]): void => void res.writeHead(304).end();
const waits = (events: PollEvent[]): number[] => events.flatMap((e) => (e.type === 'wait' || e.type === 'retry' ? [e.delay] : []));

describe('the pacing rule (pure)', () => {
  it('multiplies while unchanged up to max, and a change returns to min', () => {
    expect(walk(['unchanged', 'unchanged', 'unchanged', 'unchanged', 'changed', 'unchanged'])).toEqual([2000, 4000, 8000, 8000, 1000, 2000]);
  });

  it('after a 429 grows multiplicatively, and each success takes one step off (AIMD)', () => {
    expect(walk(['changed', 'throttled', 'changed', 'changed', 'throttled', 'changed'])).toEqual([1000, 2000, 1900, 1800, 3600, 3500]);
  });

  it('a 429 multiplies by factor ** (1 + random): between factor and factor squared', () => {
    expect(walk(['throttled'], 0.5)).toEqual([Math.min(8000, 1000 * 2 ** 1.5)]);
    expect(walk(['throttled'], 0.999)[0]).toBeCloseTo(4000, -1);
    expect(walk(['throttled', 'throttled', 'throttled'], 0.999)).toEqual([expect.any(Number), 8000, 8000]);
  });

  it('a Retry-After on a 2xx sets the wait within min..max, shorter or longer, and unchanged answers grow from there', () => {
    const at = (retryAfter: number, from = startPace(pace)): number => paceWait(nextPace(from, pace, 'unchanged', 0, retryAfter), pace);
    expect(at(5000)).toBe(5000);
    expect(at(60_000)).toBe(8000);
    expect(at(10)).toBe(1000);
    // After three unchanged answers the wait had grown to 8000: a Retry-After of 1.5 s brings it back.
    const grown = ['unchanged', 'unchanged', 'unchanged'].reduce((s: PaceState, signal) => nextPace(s, pace, signal as PaceSignal, 0), startPace(pace));
    expect(paceWait(grown, pace)).toBe(8000);
    const set = nextPace(grown, pace, 'unchanged', 0, 1500);
    expect(paceWait(set, pace)).toBe(1500);
    expect(paceWait(nextPace(set, pace, 'unchanged', 0), pace)).toBe(3000);
    // A slowdown that 429s imposed still holds.
    const throttled = nextPace(startPace(pace), pace, 'throttled', 0);
    expect(paceWait(nextPace(throttled, pace, 'changed', 0, 1000), pace)).toBe(throttled.slowdown - pace.step);
  });

  it.each([
    [{ min: 0, max: 10 }, 'interval.min'],
    [{ min: 10, max: 5 }, 'interval.max'],
    [{ min: 10, max: 20, factor: 0.5 }, 'interval.factor'],
    [{ min: 10, max: 20, step: -1 }, 'interval.step'],
    [{ max: 20 }, 'interval.min'],
    ['1000', 'interval'],
  ])('refuses %j naming %s', (value, name) => {
    expect(() => checkInterval(value)).toThrow(new RegExp(`\`${name.replace('.', '\\.')}\``));
  });

  it('fills the defaults: factor 2, step min / 10', () => {
    expect(checkInterval({ min: 500, max: 9000 })).toEqual({ min: 500, max: 9000, factor: 2, step: 50 });
  });
});

describe('poll with an adaptive interval, against a real server', () => {
  it('304s stretch the wait up to max, a changed body returns it to min', async () => {
    server = await startServer(
      scripted([json(200, { status: 'a' }, { etag: '"1"' }), notModified, notModified, notModified, notModified, json(200, { status: 'b' }), json(200, { status: 'done' })]),
    );
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', interval: { min: 1000, max: 8000 }, env: recordingEnv().env, onEvent: (e) => events.push(e) });
    expect(server.requests).toHaveLength(7);
    expect(waits(events)).toEqual([1000, 2000, 4000, 8000, 8000, 1000]);
  });

  it('an equal body counts as unchanged even without an ETag', async () => {
    const same = json(200, { status: 'running', progress: 10 });
    server = await startServer(scripted([same, same, same, json(200, { status: 'running', progress: 20 }), json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', interval: { min: 100, max: 10_000, factor: 3 }, env: recordingEnv().env, onEvent: (e) => events.push(e) });
    expect(waits(events)).toEqual([100, 300, 900, 100]);
  });

  it('a Retry-After on a 202 sets the next wait, bounded by min and max', async () => {
    server = await startServer(
      scripted([json(202, { status: 'queued' }, { 'retry-after': '5' }), json(202, { status: 'queued2' }, { 'retry-after': '600' }), json(200, { status: 'done' })]),
    );
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', interval: { min: 1000, max: 60_000 }, env: recordingEnv().env, onEvent: (e) => events.push(e) });
    expect(waits(events)).toEqual([5000, 60_000]);
  });

  it('an unchanged 202 with Retry-After: 1 waits 1 s each time: the header sets the wait, the growth does not override it', async () => {
    const queued = json(202, { status: 'queued' }, { 'retry-after': '1' });
    server = await startServer(scripted([queued, queued, queued, queued, json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', interval: { min: 500, max: 8000 }, env: recordingEnv().env, onEvent: (e) => events.push(e) });
    expect(waits(events)).toEqual([1000, 1000, 1000, 1000]);
  });

  it('a 429 slows the poller down multiplicatively and successes bring it back step by step', async () => {
    let n = 0;
    server = await startServer((_req, res) => {
      n += 1;
      if (n === 2) return sendJson(res, 429, {});
      sendJson(res, 200, { status: n >= 6 ? 'done' : 'running', n });
    });
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, {
      isDone: (j) => j.status === 'done',
      interval: { min: 1000, max: 30_000, step: 250 },
      backoff: () => 0,
      env: recordingEnv({ random: 0 }).env,
      onEvent: (e) => events.push(e),
    });
    // 200, 429 (wait doubles to 2000, no backoff), then 200s: 1750, 1500, 1250
    expect(waits(events)).toEqual([1000, 2000, 1750, 1500, 1250]);
  });

  it('a 429 with Retry-After waits at least that long and still slows down', async () => {
    server = await startServer(scripted([json(429, {}, { 'retry-after': '1' }), json(200, { status: 'r' }), json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', interval: { min: 400, max: 30_000 }, env: recordingEnv({ random: 0 }).env, onEvent: (e) => events.push(e) });
    expect(waits(events)).toEqual([1000, 760]);
  });

  it('a plain number keeps today\'s fixed interval: Retry-After on a 2xx and 304s change nothing', async () => {
    server = await startServer(scripted([json(202, { status: 'q' }, { 'retry-after': '9', etag: '"e"' }), notModified, notModified, json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv();
    await poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', interval: 700, env });
    expect(delays).toEqual([700, 700, 700]);
  });

  it('refuses a bad interval or share with a TypeError naming it, sending nothing', async () => {
    server = await startServer(scripted([json(200, {})]));
    await expect(poll(server.url, { interval: { min: 5, max: 1 } })).rejects.toThrow(/`interval\.max`/);
    await expect(poll(server.url, { share: 'yes' as never })).rejects.toThrow(/`share`/);
    await expect(poll(server.url, { pauseWhenOffline: 1 as never })).rejects.toThrow(/`pauseWhenOffline`/);
    await expect(poll(server.url, { pauseWhenBlurred: 'no' as never })).rejects.toThrow(/`pauseWhenBlurred`/);
    await expect(poll(server.url, { cooldown: null as never })).rejects.toThrow(/`cooldown`/);
    expect(server.requests).toHaveLength(0);
  });
});
