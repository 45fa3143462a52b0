import { describe, expect, it } from 'vitest';
import { realClock, startTimer } from '../../src/kit/index.js';

describe('startTimer', () => {
  it("chains timers past setTimeout's limit, firing once at the end; cancelled, it does not fire", () => {
    const armed: Array<{ ms: number; fire: () => void }> = [];
    const cleared: unknown[] = [];
    const clock = { setTimeout: (fire: () => void, ms: number) => (armed.push({ ms, fire }), armed.length), clearTimeout: (handle: unknown) => void cleared.push(handle) };
    let fired = 0;
    startTimer(clock, 2 ** 31 + 9, () => void (fired += 1));
    armed[0]!.fire();
    expect(fired).toBe(0);
    expect(armed.map((t) => t.ms)).toEqual([2 ** 31 - 1, 10]);
    armed[1]!.fire();
    expect(fired).toBe(1);
    const cancel = startTimer(clock, 5, () => void (fired += 1));
    cancel();
    expect(cleared).toEqual([3]);
    expect(fired).toBe(1);
  });

  it('clamps a negative wait to 0 and runs on the real clock', async () => {
    const fired = await new Promise<boolean>((resolve) => void startTimer(realClock, -5, () => resolve(true)));
    expect(fired).toBe(true);
  });
});
