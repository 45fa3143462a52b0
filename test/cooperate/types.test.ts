import { describe, expectTypeOf, it } from 'vitest';
import { poll, type AdaptiveInterval, type Environment, type FocusSource, type OnlineSource, type PollEvent, type PollOptions } from '../../src/index.js';

describe('types of the cooperating pollers', () => {
  it('interval takes a number or a range; share a boolean or tabs', () => {
    expectTypeOf<PollOptions['interval']>().toEqualTypeOf<number | AdaptiveInterval | undefined>();
    expectTypeOf<PollOptions['share']>().toEqualTypeOf<boolean | 'tabs' | undefined>();
    expectTypeOf<AdaptiveInterval>().toEqualTypeOf<{ min: number; max: number; factor?: number; step?: number }>();
    expectTypeOf(poll).toBeCallableWith('/x', { interval: { min: 1, max: 2 }, share: 'tabs', cooldown: false, pauseWhenOffline: false, pauseWhenBlurred: true });
    // @ts-expect-error: share is true, false or 'tabs'
    void poll('/x', { share: 'realm' }).catch(() => undefined);
  });

  it('online and focus are injectable sources, like visibility', () => {
    expectTypeOf<Environment['online']>().toEqualTypeOf<OnlineSource>();
    expectTypeOf<Environment['focus']>().toEqualTypeOf<FocusSource>();
    expectTypeOf<OnlineSource['offline']>().toEqualTypeOf<() => boolean>();
    expectTypeOf<FocusSource['subscribe']>().toEqualTypeOf<(listener: () => void) => () => void>();
  });

  it('the new events, and the old ones unchanged', () => {
    expectTypeOf<Extract<PollEvent, { type: 'cooldown' }>>().toEqualTypeOf<{ type: 'cooldown'; delay: number; at: number; origin: string }>();
    expectTypeOf<Extract<PollEvent, { type: 'wake' }>>().toEqualTypeOf<{ type: 'wake'; reason: 'visible' | 'online' | 'focus' }>();
    expectTypeOf<Extract<PollEvent, { type: 'share' }>>().toEqualTypeOf<{ type: 'share'; role: 'leader' | 'follower' }>();
    expectTypeOf<Extract<PollEvent, { type: 'pause' }>['reason']>().toEqualTypeOf<'hidden' | 'offline' | 'blurred'>();
    expectTypeOf<Extract<PollEvent, { type: 'wait' }>>().toEqualTypeOf<{ type: 'wait'; delay: number; at: number }>();
  });
});
