import { originCooldown, type OriginCooldown } from '../cooldown/origin-cooldown.js';
import type { Clock } from '../env/clock.js';
import type { LoopHooks } from './hooks.js';

/**
 * The origin cooldown as one loop's hooks: hold while the origin (or
 * route) of `url()` cools, and announce the cooldowns its answers set (a
 * 503 or 429 with a server's wait, read once by the loop). `url()` may be
 * unknown at first (`retry` learns it from an `HttpError`): no cooldown
 * applies until it is known.
 */
export function cooldownHooks(env: Clock, maxRetryAfter: number, url: () => string | undefined): LoopHooks {
  let cooldown: OriginCooldown | undefined;
  let origin = '';
  const known = (): OriginCooldown | undefined => {
    if (cooldown) return cooldown;
    const target = url();
    if (!target || !URL.canParse(target)) return undefined;
    origin = new URL(target).origin;
    return (cooldown = originCooldown(target, maxRetryAfter));
  };
  return {
    hold() {
      const delay = known()?.delay(env.now(), env.random) ?? 0;
      return delay > 0 ? { event: { type: 'cooldown', delay, at: env.now() + delay, origin }, ms: delay } : undefined;
    },
    answer({ status, asked, at }) {
      if ((status === 429 || status === 503) && asked) known()?.note(status, Math.min(asked, maxRetryAfter), at);
    },
  };
}
