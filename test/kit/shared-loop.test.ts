import { describe, expect, it } from 'vitest';
import type { PollEvent } from '../../src/index.js';
import { createSharedLoops, type PollCall, type PollRunner, type SharedLoop } from '../../src/kit/index.js';

// The one shared loop behind share(), shareTabs() and pollite/cluster's
// share(), on its own: callers are plain sinks, time a manual clock.

/** A clock whose timers fire only when the test says. */
function manualClock(): { env: { setTimeout(fire: () => void, ms: number): unknown; clearTimeout(handle: unknown): void }; fire(ms: number): void; live(): number } {
  const timers = new Map<number, { fire: () => void; ms: number }>();
  let next = 0;
  return {
    env: {
      setTimeout: (fire, ms) => (timers.set((next += 1), { fire, ms }), next),
      clearTimeout: (handle) => void timers.delete(handle as number),
    },
    fire: (ms) => {
      for (const [handle, timer] of [...timers]) {
        if (timer.ms !== ms) continue;
        timers.delete(handle);
        timer.fire();
      }
    },
    live: () => timers.size,
  };
}

/** One caller: what its sink got, and its call. */
function callerOf(clock: ReturnType<typeof manualClock>, options: { done?: (data: unknown) => boolean; signal?: AbortSignal; timeout?: number; throws?: unknown } = {}) {
  const bodies: unknown[] = [];
  const events: PollEvent[] = [];
  const call = {
    request: undefined,
    settings: { env: clock.env },
    sink: {
      update: (data: unknown) => {
        bodies.push(data);
        if (options.throws !== undefined) throw options.throws;
        return options.done?.(data) ?? false;
      },
      event: (event: PollEvent) => void events.push(event),
    },
    signal: options.signal,
    timeout: options.timeout,
  } as unknown as PollCall<unknown>;
  return { call, bodies, events };
}

const settled = (promise: Promise<unknown>): Promise<{ data: unknown } | { error: unknown }> =>
  promise.then(
    (data) => ({ data }),
    (error: unknown) => ({ error }),
  );

describe('createSharedLoops', () => {
  it('starts one loop per key: the first caller starts it, the next joins; each gets every body, a late joiner the latest at once', async () => {
    const clock = manualClock();
    const loops = createSharedLoops();
    const a = callerOf(clock, { done: (data) => data === 'done' });
    const b = callerOf(clock, { done: (data) => data === 'done' });
    const c = callerOf(clock, { done: (data) => data === 'done' });
    const starts: SharedLoop[] = [];
    const first = loops.join('k', a.call, (loop) => starts.push(loop));
    const second = loops.join('k', b.call, (loop) => starts.push(loop));
    expect(starts).toHaveLength(1);
    const loop = starts[0]!;
    expect(loops.get('k')).toBe(loop);
    expect(loop.size).toBe(2);
    expect(await loop.sink.update('running')).toBe(false);
    loop.sink.event({ type: 'wait', delay: 5, at: 5 });
    const third = loops.join('k', c.call, () => starts.push(loop));
    await Promise.resolve();
    expect([a.bodies, b.bodies, c.bodies]).toEqual([['running'], ['running'], ['running']]);
    expect(a.events).toEqual([{ type: 'wait', delay: 5, at: 5 }]);
    expect(c.events).toEqual([]);
    expect(await loop.sink.update('done')).toBe(true);
    expect(await Promise.all([first, second, third])).toEqual(['done', 'done', 'done']);
    expect(loop.signal.aborted).toBe(true);
    expect(loops.get('k')).toBeUndefined();
    expect(starts).toHaveLength(1);
  });

  it('settles a caller whose callbacks throw with that error, alone; the others go on', async () => {
    const clock = manualClock();
    const loops = createSharedLoops();
    const boom = new Error('boom');
    const good = callerOf(clock, { done: (data) => data === 2 });
    const bad = callerOf(clock, { throws: boom });
    let loop!: SharedLoop;
    const kept = loops.join('k', good.call, (started) => (loop = started));
    const thrown = loops.join('k', bad.call, () => undefined);
    expect(await loop.sink.update(1)).toBe(false);
    expect(await settled(thrown)).toEqual({ error: boom });
    expect(loop.size).toBe(1);
    expect(loop.signal.aborted).toBe(false);
    await loop.sink.update(2);
    expect(await kept).toBe(2);
  });

  it("a caller's signal and timeout settle it alone; the loop stops, and its key is free, when the last has left", async () => {
    const clock = manualClock();
    const loops = createSharedLoops();
    const controller = new AbortController();
    const aborted = callerOf(clock, { signal: controller.signal });
    const timed = callerOf(clock, { timeout: 50 });
    let loop!: SharedLoop;
    const first = loops.join('k', aborted.call, (started) => (loop = started));
    const second = loops.join('k', timed.call, () => undefined);
    controller.abort(new Error('left'));
    expect(await settled(first)).toEqual({ error: new Error('left') });
    expect(loop.signal.aborted).toBe(false);
    clock.fire(50);
    const outcome = await settled(second);
    expect('error' in outcome && outcome.error instanceof DOMException && [outcome.error.name, outcome.error.message]).toEqual(['TimeoutError', 'Polling timed out after 50 ms']);
    expect(loop.signal.aborted).toBe(true);
    expect(loops.get('k')).toBeUndefined();
    expect(clock.live()).toBe(0);
    const again = callerOf(clock);
    let restarted: SharedLoop | undefined;
    void loops.join('k', again.call, (started) => (restarted = started));
    expect(restarted).not.toBe(loop);
  });

  it("run: the rest of the chain with the loop's sink and signal, no caller's signal or timeout; its failure rejects every caller", async () => {
    const clock = manualClock();
    const loops = createSharedLoops();
    const controller = new AbortController();
    const a = callerOf(clock, { signal: controller.signal, timeout: 1000 });
    const b = callerOf(clock);
    const ran: Array<PollCall<unknown>> = [];
    const gone = new Error('404');
    let fail!: (error: unknown) => void;
    const next = ((call: PollCall<unknown>) => {
      ran.push(call);
      return new Promise((_resolve, reject) => (fail = reject));
    }) as PollRunner;
    let loop!: SharedLoop;
    const first = loops.join('k', a.call, (started) => {
      loop = started;
      started.run(a.call, next);
    });
    const second = loops.join('k', b.call, () => undefined);
    await Promise.resolve();
    expect(ran).toHaveLength(1);
    expect(ran[0]!.sink).toBe(loop.sink);
    expect(ran[0]!.signal).toBe(loop.signal);
    expect(ran[0]!.timeout).toBeUndefined();
    fail(gone);
    expect(await Promise.all([settled(first), settled(second)])).toEqual([{ error: gone }, { error: gone }]);
    expect(loops.get('k')).toBeUndefined();
  });

  it('run: a next that throws at once fails the callers instead of leaving a loop that never runs', async () => {
    const clock = manualClock();
    const loops = createSharedLoops();
    const a = callerOf(clock);
    const broken = new TypeError('a feature threw');
    const joined = loops.join('k', a.call, (loop) =>
      loop.run(a.call, () => {
        throw broken;
      }),
    );
    expect(await settled(joined)).toEqual({ error: broken });
    expect(loops.get('k')).toBeUndefined();
  });
});
