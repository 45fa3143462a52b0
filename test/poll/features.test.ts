import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry, poll, type PollEvent } from '../../src/index.js';
import { type LoopHooks, type PollAnswer, type PollFeature } from '../../src/kit/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Job {
  status: string;
}
const isDone = (job: Job): boolean => job.status === 'done';

describe('the feature contract: a feature joins the loop at its named points', () => {
  it('hold, answer, pace and waiting are asked in order, with what each answer was', async () => {
    server = await startServer(scripted([json(200, { status: 'a' }), json(503, {}), json(200, { status: 'done' })]));
    const log: string[] = [];
    let held = false;
    const feature: PollFeature = {
      attach: ({ request, settings }): LoopHooks => {
        log.push(`attach ${new URL(request.url).pathname} interval=${settings.interval}`);
        return {
          hold: () => {
            if (held) return undefined;
            held = true;
            return { event: { type: 'wait', delay: 7, at: 0 }, ms: 7 };
          },
          answer: (answer: PollAnswer) => log.push(`answer ${answer.status} ${JSON.stringify(answer.data)}`),
          pace: (wait) => {
            log.push(`pace ${wait}`);
            return wait * 3;
          },
          waiting: () => log.push('waiting'),
        };
      },
    };
    const { clock, env, delays } = recordingEnv({ random: 0 });
    const started = clock.now();
    const events: PollEvent[] = [];
    await poll<Job>(`${server.url}/jobs/1`, { isDone, interval: 100, backoff: () => 50, use: [feature], env, onEvent: (e) => events.push(e) });
    expect(log).toEqual([
      'attach /jobs/1 interval=100',
      'waiting',
      'answer 200 {"status":"a"}',
      'pace 100',
      'waiting',
      'answer 503 undefined',
      'waiting',
      'answer 200 {"status":"done"}',
    ]);
    // The feature's hold (7), its pace of the interval (300), the retry decision's wait (100 + 50), untouched by pace.
    expect(delays).toEqual([7, 300, 150]);
    // Its event, with the instant the hold ends as the engine fixed it (the one `waiting` hooks are told), not the hook's own.
    expect(events[0]).toEqual({ type: 'wait', delay: 7, at: started + 7 });
    expect(server.requests).toHaveLength(3);
  });

  it('waiting is told the very instant the wait event announced, however long the event listeners take', async () => {
    // The tab that may take over and the checkpoint learn when the next attempt is due from `waiting`; the callers, from
    // the event. They are one wait: a listener that takes 3 ms must not make the hooks hear of a later one.
    server = await startServer(scripted([json(200, { status: 'a' }), json(503, {}), json(200, { status: 'done' })]));
    const { clock, env } = recordingEnv({ random: 0 });
    let slow = 0;
    const told: number[] = [];
    const announced: number[] = [];
    let held = false;
    const feature: PollFeature = {
      attach: () => ({
        // A feature's own hold (a checkpoint's saved wait, a handover's), its event's `at` reckoned by the feature.
        hold: () => (held ? undefined : ((held = true), { event: { type: 'wait', delay: 7, at: 0 }, ms: 7 })),
        waiting: (at) => void told.push(at),
      }),
    };
    await poll<Job>(`${server.url}/jobs/1`, {
      isDone,
      interval: 100,
      use: [feature],
      env: { ...env, now: () => clock.now() + slow },
      onEvent: (event) => {
        if (event.type !== 'wait' && event.type !== 'retry') return;
        announced.push(event.at);
        slow += 3;
      },
    });
    expect(announced).toHaveLength(3);
    expect(told).toEqual(announced);
  });

  it('a hold of Infinity waits for its wake, and every feature is asked again after it', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    let blocked = true;
    const listeners = new Set<() => void>();
    const asked: string[] = [];
    const gate = (name: string, holds: () => boolean): PollFeature => ({
      attach: () => ({
        hold: () => {
          asked.push(name);
          return holds()
            ? { event: { type: 'pause', reason: 'blurred' }, ms: Infinity, wake: { reason: 'focus', ready: () => !holds(), subscribe: (l) => (listeners.add(l), () => listeners.delete(l)) } }
            : undefined;
        },
      }),
    });
    const events: PollEvent[] = [];
    const running = poll<Job>(server.url, { isDone, use: [gate('first', () => false), gate('second', () => blocked)], onEvent: (e) => events.push(e) });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(server.requests).toHaveLength(0);
    blocked = false;
    for (const listener of [...listeners]) listener();
    await running;
    expect(asked).toEqual(['first', 'second', 'first', 'second']);
    expect(events.slice(0, 3).map((e) => e.type)).toEqual(['pause', 'resume', 'request']);
    expect(listeners.size).toBe(0);
  });

  it('run wraps the loop: a feature may change the call or answer without the loop', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const cached: PollFeature = { run: async <T>() => ({ status: 'done', from: 'cache' }) as T };
    expect(await poll<Job>(server.url, { isDone, use: [cached] })).toEqual({ status: 'done', from: 'cache' });
    expect(server.requests).toHaveLength(0);
    const prefixed: PollFeature = {
      run: (call, next) => next({ ...call, sink: { ...call.sink, update: async (data) => (await call.sink.update({ ...(data as object), seen: true } as never)) } }),
    };
    const updates: unknown[] = [];
    await poll<Job>(server.url, { isDone, use: [prefixed], onUpdate: (job) => void updates.push(job) });
    expect(updates).toEqual([{ status: 'done', seen: true }]);
  });
});

describe('moved options are refused with a TypeError that names what to import', () => {
  it.each([
    [{ share: true }, "Expected `share` to be given as `use: [share()]` or `use: [shareTabs()]` from 'pollite/cooperate'"],
    [{ share: 'tabs' }, "Expected `share` to be given as `use: [share()]` or `use: [shareTabs()]` from 'pollite/cooperate'"],
    [{ pauseWhenBlurred: true }, "Expected `pauseWhenBlurred` to be given as `use: [pauseWhenBlurred()]` from 'pollite/cooperate'"],
    [{ interval: { min: 1, max: 2 } }, "Expected `interval` to be a number: a range is `use: [paceByData({ min, max })]` from 'pollite/cooperate'"],
    [{ maxAttempts: 3 }, 'Expected `maxAttempts` to be given as `retries` (the same number: failures in a row that are tried again)'],
    [{ use: [null] }, 'Expected `use` to be an array of features'],
    [{ timeout: 0 }, 'Expected `timeout` to be a finite number > 0'],
    [{ requestTimeout: -1 }, 'Expected `requestTimeout` to be a finite number > 0'],
  ])('%o', async (options, message) => {
    const sent: unknown[] = [];
    const fetch = (async (input: unknown) => (sent.push(input), new Response('{}'))) as typeof globalThis.fetch;
    const error = await poll('http://127.0.0.1:1/x', { ...(options as object), fetch }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(message);
    expect(sent).toEqual([]);
  });
});

describe('a wake that ends every wait: "try now"', () => {
  /** A wake the test fires by hand. */
  const tryNow = (options: { network?: boolean; every?: boolean }) => {
    const listeners = new Set<() => void>();
    let pressed = false;
    return {
      press: () => ((pressed = true), [...listeners].forEach((l) => l())),
      listeners: () => listeners.size,
      feature: {
        attach: (): LoopHooks => ({
          wake: { reason: 'now', ready: () => pressed && !(pressed = false), subscribe: (l) => (listeners.add(l), () => void listeners.delete(l)), ...options },
        }),
      } satisfies PollFeature,
    };
  };

  it('every: a Retry-After wait is cut short when asked, the request goes out at once', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '600' }), json(200, { status: 'done' })]));
    const button = tryNow({ every: true });
    const events: PollEvent[] = [];
    const running = poll<Job>(server.url, { isDone, use: [button.feature], onEvent: (e) => events.push(e) });
    while (!events.some((e) => e.type === 'retry')) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(button.listeners()).toBe(1);
    button.press();
    expect((await running).status).toBe('done');
    expect(events.filter((e) => e.type === 'wake')).toEqual([{ type: 'wake', reason: 'now' }]);
    expect(server.requests).toHaveLength(2);
    expect(button.listeners()).toBe(0);
  });

  it('without every, a wake ends only interval waits: a Retry-After wait is kept', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '1' }), json(200, { status: 'done' })]));
    const button = tryNow({});
    const events: PollEvent[] = [];
    const started = Date.now();
    const running = poll<Job>(server.url, { isDone, use: [button.feature], onEvent: (e) => events.push(e) });
    while (!events.some((e) => e.type === 'retry')) await new Promise((resolve) => setTimeout(resolve, 5));
    button.press();
    await running;
    expect(events.some((e) => e.type === 'wake')).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('retry and fetchWithRetry take a wake that ends the wait between attempts', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '600' }), json(200, { ok: true })]));
    const listeners = new Set<() => void>();
    let pressed = false;
    const wake = { reason: 'now', ready: () => pressed, subscribe: (l: () => void) => (listeners.add(l), () => void listeners.delete(l)) };
    let retried = false;
    const response = fetchWithRetry(server.url, { retry: { wake, onRetry: () => void (retried = true) } });
    while (!retried) await new Promise((resolve) => setTimeout(resolve, 5));
    pressed = true;
    for (const l of [...listeners]) l();
    expect((await response).status).toBe(200);
    expect(server.requests).toHaveLength(2);
    expect(listeners.size).toBe(0);
  });
});
