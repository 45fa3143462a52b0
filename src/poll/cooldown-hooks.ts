import { originCooldown } from '../cooldown/origin-cooldown.js';
import { serverWait } from '../http/server-wait.js';
import type { LoopContext, LoopHooks } from './feature.js';

/** The origin cooldown as one loop's hooks: hold while the origin (or route) cools, and announce the cooldowns its answers set. */
export function cooldownHooks({ request, settings }: LoopContext): LoopHooks {
  const { env, maxRetryAfter } = settings;
  const cooldown = originCooldown(request.url, maxRetryAfter);
  const origin = new URL(request.url).origin;
  return {
    hold() {
      const delay = cooldown.delay(env.now(), env.random);
      return delay > 0 ? { event: { type: 'cooldown', delay, at: env.now() + delay, origin }, ms: delay } : undefined;
    },
    answer({ status, headers, at }) {
      if (status === 429 || status === 503) cooldown.note(status, Math.min(serverWait(status, headers, at) ?? 0, maxRetryAfter), at);
    },
  };
}
