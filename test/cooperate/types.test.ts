import { describe, expectTypeOf, it } from 'vitest';
import { paceByData, pauseWhenBlurred, share, shareTabs, type FocusSource, type PaceByDataOptions, type ShareOptions } from '../../src/cooperate/index.js';
import { poll, type Environment, type OnlineSource, type PollEvent, type PollOptions, type WaitSource } from '../../src/index.js';
import { type PollCall, type PollFeature } from '../../src/kit/index.js';

describe('types of the cooperating pollers', () => {
  it('interval is a number; sharing and a pace set by the data are features passed in use', () => {
    expectTypeOf<PollOptions['interval']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<PollOptions['use']>().toEqualTypeOf<readonly PollFeature[] | undefined>();
    expectTypeOf<PaceByDataOptions>().toEqualTypeOf<{ min: number; max: number; factor?: number }>();
    expectTypeOf(share).toEqualTypeOf<(options?: ShareOptions) => PollFeature>();
    expectTypeOf(shareTabs).toEqualTypeOf<(options?: ShareOptions) => PollFeature>();
    expectTypeOf<ShareOptions['key']>().toEqualTypeOf<string | ((call: PollCall<unknown>) => string) | undefined>();
    expectTypeOf(poll).toBeCallableWith('/x', { use: [paceByData({ min: 1, max: 2 }), shareTabs(), pauseWhenBlurred()], cooldown: false, pauseWhenOffline: false });
    // @ts-expect-error: share is no longer an option of poll, but the share() feature
    void poll('/x', { share: true }).catch(() => undefined);
    // @ts-expect-error: a range is paceByData's, not interval's
    void poll('/x', { interval: { min: 1, max: 2 } }).catch(() => undefined);
  });

  it('online is an injectable source, like visibility; focus is the argument of pauseWhenBlurred', () => {
    expectTypeOf<Environment['online']>().toEqualTypeOf<OnlineSource>();
    expectTypeOf<Environment>().not.toHaveProperty('focus');
    expectTypeOf(pauseWhenBlurred).parameter(0).toEqualTypeOf<FocusSource | undefined>();
    expectTypeOf<OnlineSource['offline']>().toEqualTypeOf<() => boolean>();
    expectTypeOf<FocusSource['subscribe']>().toEqualTypeOf<(listener: () => void) => () => void>();
  });

  it('the new events, and the old ones unchanged', () => {
    expectTypeOf<Extract<PollEvent, { type: 'cooldown' }>>().toEqualTypeOf<{ type: 'cooldown'; delay: number; at: number; origin: string }>();
    expectTypeOf<Extract<PollEvent, { type: 'wake' }>>().toEqualTypeOf<{ type: 'wake'; reason: 'visible' | 'online' | 'focus' | 'now' }>();
    expectTypeOf<Extract<PollEvent, { type: 'share' }>>().toEqualTypeOf<
      | { type: 'share'; role: 'leader' | 'follower'; apart?: 'fetch' | 'parse' | 'use' | `init.${string}` | 'request' }
      | { type: 'share'; role: 'local'; reason: 'fetch' | 'parse' | 'use' | `init.${string}` }
    >();
    expectTypeOf<Extract<PollEvent, { type: 'pause' }>['reason']>().toEqualTypeOf<'hidden' | 'offline' | 'blurred'>();
    expectTypeOf<Extract<PollEvent, { type: 'wait' }>>().toEqualTypeOf<{ type: 'wait'; delay: number; at: number; source?: WaitSource }>();
  });
});
