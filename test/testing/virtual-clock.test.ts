import { describe, expect, it } from 'vitest';
import { fetchWithRetry, poll, type PollEvent } from '../../src/index.js';
import { resolveEnvironment } from '../../src/env/environment.js';
import { wait } from '../../src/env/wait.js';
import { VirtualClock, type VirtualClockOptions, type VirtualTimer } from '../../src/testing/index.js';

/** Lets promise continuations and a macrotask's worth of callbacks run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('VirtualClock options', () => {
  it('starts at 0 with exact times, randomness 0.5, no recording and no self-running', async () => {
    const clock = new VirtualClock();
    expect([clock.now(), clock.resolution, clock.random(), clock.delays, clock.pending()]).toEqual([0, 0, 0.5, [], 0]);
    clock.env().setTimeout(() => undefined, 10);
    await flush();
    expect([clock.delays, clock.pending(), clock.now()]).toEqual([[], 1, 0]);
  });

  it('takes a start, a fixed or a function randomness', () => {
    expect(new VirtualClock({ start: 1_000_000 }).now()).toBe(1_000_000);
    expect(new VirtualClock({ random: 0 }).random()).toBe(0);
    const draws = [0.25, 0.75];
    const clock = new VirtualClock({ random: () => draws.shift()! });
    expect([clock.random(), clock.env().random()]).toEqual([0.25, 0.75]);
  });

  it.each([
    [{ start: Number.NaN }, 'Expected `start` to be a finite number'],
    [{ start: '0' }, 'Expected `start` to be a finite number'],
    [{ resolution: -1 }, 'Expected `resolution` to be a finite number >= 0'],
    [{ resolution: Infinity }, 'Expected `resolution` to be a finite number >= 0'],
    [{ random: 2 }, 'Expected `random` to be a function or a number from 0 to 1'],
    [{ recordDelays: 1 }, 'Expected `recordDelays` to be a boolean'],
    [{ auto: 'yes' }, 'Expected `auto` to be a boolean'],
  ])('refuses %o with a TypeError naming the option', (options, message) => {
    expect(() => new VirtualClock(options as unknown as VirtualClockOptions)).toThrow(new TypeError(message));
  });

  it('refuses options that are not an object', () => {
    expect(() => new VirtualClock(5 as unknown as VirtualClockOptions)).toThrow(new TypeError('Expected `options` to be an object'));
  });
});

describe('VirtualClock timers', () => {
  it('fires by due time, ties in order of arming, moving now to each due time (step)', () => {
    const clock = new VirtualClock({ start: 100 });
    const seen: string[] = [];
    clock.setTimeout(() => seen.push(`b@${clock.now()}`), 20);
    clock.setTimeout(() => seen.push(`a@${clock.now()}`), 10);
    clock.at(120, () => seen.push(`b2@${clock.now()}`));
    clock.env().setTimeout(() => seen.push(`b3@${clock.now()}`), 20);
    clock.setTimeout(() => seen.push(`now@${clock.now()}`), 0);
    while (clock.step()) void 0;
    expect(seen).toEqual(['now@100', 'a@110', 'b@120', 'b2@120', 'b3@120']);
    expect(clock.step()).toBe(false);
    expect(clock.now()).toBe(120);
  });

  it('treats a negative or NaN delay as 0, and never schedules before now', () => {
    const clock = new VirtualClock({ start: 50 });
    const seen: number[] = [];
    clock.setTimeout(() => seen.push(clock.now()), -5);
    clock.setTimeout(() => seen.push(clock.now()), Number.NaN);
    clock.at(10, () => seen.push(clock.now()));
    expect([clock.setTimeout(() => undefined, -1).time, clock.at(10, () => undefined).time]).toEqual([50, 50]);
    while (clock.step()) void 0;
    expect(seen).toEqual([50, 50, 50]);
  });

  it('rounds due times up to the resolution grid, never down', () => {
    const clock = new VirtualClock({ resolution: 5 });
    const due = [clock.setTimeout(() => undefined, 12), clock.setTimeout(() => undefined, 15), clock.setTimeout(() => undefined, 0.1), clock.at(20.0000000001, () => undefined)];
    expect(due.map((timer) => timer.time)).toEqual([15, 15, 5, 20]);
    expect(new VirtualClock({ resolution: 1 }).setTimeout(() => undefined, 20.2).time).toBe(21);
    expect(new VirtualClock().setTimeout(() => undefined, 20.2).time).toBe(20.2);
  });

  it('clearTimeout cancels a pending timer and ignores fired, foreign and non-timer handles', () => {
    const clock = new VirtualClock();
    const other = new VirtualClock();
    const seen: string[] = [];
    const a = clock.setTimeout(() => seen.push('a'), 10);
    const b = clock.env().setTimeout(() => seen.push('b'), 20) as VirtualTimer;
    clock.setTimeout(() => seen.push('c'), 30);
    const foreign = other.setTimeout(() => seen.push('foreign'), 5);
    expect([a.live, clock.pending(), clock.pending('env')]).toEqual([true, 3, 1]);
    clock.env().clearTimeout(b);
    clock.clearTimeout(b); // twice: counted once
    clock.clearTimeout(foreign);
    clock.clearTimeout(undefined);
    clock.clearTimeout(42);
    expect([b.live, clock.pending(), clock.pending('env'), other.pending()]).toEqual([false, 2, 0, 1]);
    expect(clock.step()).toBe(true);
    clock.clearTimeout(a); // already fired
    expect([a.live, clock.pending()]).toEqual([false, 1]);
    while (clock.step()) void 0;
    expect(seen).toEqual(['a', 'c']);
    expect([clock.now(), clock.pending()]).toEqual([30, 0]);
  });

  it("pending() counts every timer; pending('env') only those armed through env()", () => {
    const clock = new VirtualClock();
    const env = clock.env();
    env.setTimeout(() => undefined, 1);
    env.setTimeout(() => undefined, 2);
    clock.setTimeout(() => undefined, 3);
    expect([clock.pending(), clock.pending('all'), clock.pending('env')]).toEqual([3, 3, 2]);
    clock.step();
    expect([clock.pending(), clock.pending('env')]).toEqual([2, 1]);
  });

  it("records every delay asked of env()'s setTimeout, as asked, only with recordDelays", () => {
    const clock = new VirtualClock({ recordDelays: true, resolution: 1 });
    const env = clock.env();
    env.setTimeout(() => undefined, 20.2);
    env.setTimeout(() => undefined, -3);
    clock.setTimeout(() => undefined, 7); // the test's own: not recorded
    env.clearTimeout(env.setTimeout(() => undefined, 1000));
    expect(clock.delays).toEqual([20.2, -3, 1000]);
    const quiet = new VirtualClock();
    quiet.env().setTimeout(() => undefined, 5);
    expect(quiet.delays).toEqual([]);
  });
});

describe('VirtualClock.env()', () => {
  it('is one frozen object without overrides; overrides make a new one on top', () => {
    const clock = new VirtualClock({ random: 0.25 });
    const env = clock.env();
    expect(clock.env()).toBe(env);
    expect(Object.isFrozen(env)).toBe(true);
    expect(Object.keys(env).sort()).toEqual(['clearTimeout', 'now', 'random', 'setTimeout', 'visibility']);
    expect([env.now(), env.random(), env.visibility.hidden()]).toEqual([0, 0.25, false]);
    const unsubscribe = env.visibility.subscribe(() => undefined);
    expect(unsubscribe()).toBeUndefined();
    const hidden = { hidden: () => true, subscribe: () => () => undefined };
    const custom = clock.env({ visibility: hidden, random: () => 0.9 });
    expect(custom).not.toBe(env);
    expect([custom.visibility, custom.random(), custom.now]).toEqual([hidden, 0.9, env.now]);
  });

  it("is the clock's time: env timers fire with the clock, and now follows it", () => {
    const clock = new VirtualClock({ start: 10 });
    const env = resolveEnvironment(clock.env());
    const seen: number[] = [];
    env.setTimeout(() => seen.push(env.now()), 5);
    clock.step();
    expect(seen).toEqual([15]);
  });
});

describe('VirtualClock.advance', () => {
  it('fires the timers due within ms in order, those armed on the way too, and ends at now + ms', async () => {
    const clock = new VirtualClock({ start: 1000 });
    const seen: string[] = [];
    clock.setTimeout(() => seen.push(`late@${clock.now()}`), 501);
    clock.setTimeout(() => {
      seen.push(`a@${clock.now()}`);
      clock.setTimeout(() => seen.push(`a+100@${clock.now()}`), 100);
    }, 300);
    clock.setTimeout(() => seen.push(`edge@${clock.now()}`), 500);
    await clock.advance(500);
    expect(seen).toEqual(['a@1300', 'a+100@1400', 'edge@1500']);
    expect([clock.now(), clock.pending()]).toEqual([1500, 1]);
    await clock.advance(0);
    expect(clock.now()).toBe(1500);
    await clock.advance(1);
    expect(seen.at(-1)).toBe('late@1501');
  });

  it('lets promise chains settle between timers, so async code re-arms inside the same advance', async () => {
    const clock = new VirtualClock();
    const env = clock.env();
    const log: number[] = [];
    void (async () => {
      for (let i = 0; i < 3; i += 1) {
        await wait(env, 100);
        await Promise.resolve();
        log.push(env.now());
      }
    })();
    await clock.advance(250);
    expect(log).toEqual([100, 200]);
    expect(clock.now()).toBe(250);
    await clock.advance(50);
    expect(log).toEqual([100, 200, 300]);
  });
});

describe('VirtualClock.run', () => {
  it('runs timers in order without waiting, on a 1 ms grid, and skips cleared ones', async () => {
    const time = new VirtualClock({ resolution: 1 });
    const seen: Array<[string, number]> = [];
    time.setTimeout(() => seen.push(['b', time.now()]), 20.2);
    time.setTimeout(() => seen.push(['a', time.now()]), 10);
    const cleared = time.setTimeout(() => seen.push(['never', time.now()]), 15);
    time.clearTimeout(cleared);
    time.setTimeout(() => seen.push(['late', time.now()]), 1000);
    await time.run(500);
    expect(seen).toEqual([
      ['a', 10],
      ['b', 21],
    ]);
    expect(time.now()).toBe(500);
  });

  it('lets promise chains finish before time moves on, so real async code sees the right clock', async () => {
    const time = new VirtualClock({ resolution: 1 });
    const env = resolveEnvironment(time.env({ random: () => 0.5 }));
    const log: string[] = [];
    const worker = async (name: string, waits: number[]): Promise<void> => {
      for (const ms of waits) {
        await wait(env, ms);
        await Promise.resolve();
        await new Promise<void>((resolve) => queueMicrotask(resolve));
        log.push(`${name}@${env.now()}`);
      }
    };
    void worker('x', [10, 10, 10]);
    void worker('y', [15, 1, 1]);
    await time.run(100);
    expect(log).toEqual(['x@10', 'y@15', 'y@16', 'y@17', 'x@20', 'x@30']);
  });

  it('keeps exact times with resolution 0', async () => {
    const time = new VirtualClock({ resolution: 0 });
    const seen: number[] = [];
    time.setTimeout(() => seen.push(time.now()), 0.25);
    time.at(0.125, () => seen.push(time.now()));
    await time.run(1, false);
    expect(seen).toEqual([0.125, 0.25]);
  });

  it('counts what it fired: nothing pending once past every due time', async () => {
    const clock = new VirtualClock();
    clock.env().setTimeout(() => undefined, 5);
    clock.setTimeout(() => undefined, 50);
    await clock.run(10);
    expect([clock.pending(), clock.pending('env'), clock.now()]).toEqual([1, 0, 10]);
  });
});

describe('VirtualClock auto', () => {
  it('fires every timer by itself, in due order (not arming order), now moving to each due time', async () => {
    const clock = new VirtualClock({ auto: true, start: 1000 });
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      clock.setTimeout(() => {
        seen.push(`c@${clock.now()}`);
        resolve();
      }, 60_000);
      clock.setTimeout(() => seen.push(`a@${clock.now()}`), 10);
      clock.setTimeout(() => {
        seen.push(`b@${clock.now()}`);
        clock.setTimeout(() => seen.push(`b+5@${clock.now()}`), 5);
      }, 20);
    });
    expect(seen).toEqual([]); // nothing fires synchronously
    await done;
    expect(seen).toEqual(['a@1010', 'b@1020', 'b+5@1025', 'c@61000']);
    expect(clock.pending()).toBe(0);
  });

  it('fires one timer per macrotask, after the promise continuations of the one before', async () => {
    const clock = new VirtualClock({ auto: true });
    const env = clock.env();
    const log: string[] = [];
    const worker = async (name: string, waits: number[]): Promise<void> => {
      for (const ms of waits) {
        await wait(env, ms);
        await Promise.resolve();
        log.push(`${name}@${env.now()}`);
      }
    };
    await Promise.all([worker('x', [10, 10, 10]), worker('y', [15, 1, 1])]);
    expect(log).toEqual(['x@10', 'y@15', 'y@16', 'y@17', 'x@20', 'x@30']);
  });

  it('skips cleared timers and stops when none is pending', async () => {
    const clock = new VirtualClock({ auto: true });
    const seen: number[] = [];
    clock.clearTimeout(clock.setTimeout(() => seen.push(1), 1));
    clock.setTimeout(() => seen.push(2), 2);
    for (let i = 0; i < 5; i += 1) await flush();
    expect([seen, clock.now(), clock.pending()]).toEqual([[2], 2, 0]);
  });
});

describe('pollite driven by a VirtualClock', () => {
  const job = (status: string): Response => new Response(JSON.stringify({ status }), { status: 200, headers: { 'content-type': 'application/json' } });

  it('poll over a fake fetch in virtual time: requests at the exact virtual times, the exact waits', async () => {
    const clock = new VirtualClock({ start: 1_000_000, recordDelays: true });
    const sent: number[] = [];
    const answers = [job('queued'), job('running'), job('running'), job('done')];
    const fetch = (async () => {
      sent.push(clock.now());
      return answers.shift()!;
    }) as typeof globalThis.fetch;
    const events: PollEvent[] = [];
    const result = poll<{ status: string }>('https://api.example/jobs/1', {
      fetch,
      env: clock.env(),
      interval: 1000,
      isDone: (j) => j.status === 'done',
      onEvent: (e) => events.push(e),
    });
    await flush();
    expect(sent).toEqual([1_000_000]);
    await clock.advance(999);
    expect(sent).toEqual([1_000_000]);
    await clock.advance(1);
    expect(sent).toEqual([1_000_000, 1_001_000]);
    await clock.advance(2500);
    expect(await result).toEqual({ status: 'done' });
    expect(sent).toEqual([1_000_000, 1_001_000, 1_002_000, 1_003_000]);
    expect(clock.delays).toEqual([1000, 1000, 1000]);
    expect(events.filter((e) => e.type === 'wait')).toEqual([
      { type: 'wait', delay: 1000, at: 1_001_000 },
      { type: 'wait', delay: 1000, at: 1_002_000 },
      { type: 'wait', delay: 1000, at: 1_003_000 },
    ]);
    expect([clock.now(), clock.pending()]).toEqual([1_003_500, 0]);
  });

  it('fetchWithRetry on an auto clock: a two-minute Retry-After costs no real time', async () => {
    const clock = new VirtualClock({ auto: true, recordDelays: true, random: 0 });
    const sent: number[] = [];
    const fetch = (async () => {
      sent.push(clock.now());
      return sent.length === 1 ? new Response(null, { status: 503, headers: { 'retry-after': '120' } }) : new Response('ok');
    }) as typeof globalThis.fetch;
    const started = Date.now();
    const response = await fetchWithRetry('https://api.example/x', { retry: { fetch, env: clock.env(), cooldown: false } });
    expect(await response.text()).toBe('ok');
    expect(sent).toEqual([0, 120_000]);
    expect(clock.delays).toEqual([120_000]);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
