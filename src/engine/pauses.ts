import { unsubscribed } from '../env/online.js';
import type { Wake } from '../env/wait.js';
import type { LoopHooks } from './hooks.js';
import type { PollEvent } from './events.js';

/** A condition under which nothing is sent: a hidden page, a network that is down, a window without focus. */
export interface PauseSource {
  /** True while the pause is in force. */
  holds(): boolean;
  /** Calls `listener` whenever it may have changed; returns the unsubscribe. Called detached, without `this`. */
  subscribe(listener: () => void): () => void;
}

/**
 * The hooks of one pause: hold while `source` holds (emitting a `pause`
 * event with `reason`), and end interval waits early (`wake`) once it no
 * longer does, so the first request after it goes out at once. None for a
 * source with nothing to watch (a default source outside a browser: no
 * document, no window), which can neither pause nor wake: its poll's waits
 * then stay bare timers, and each request costs less.
 */
export function pauseHooks(
  reason: Extract<PollEvent, { type: 'pause' }>['reason'],
  wakeReason: Extract<PollEvent, { type: 'wake' }>['reason'],
  source: PauseSource,
  network?: boolean,
): LoopHooks | undefined {
  const probe = source.subscribe(unsubscribed);
  probe();
  if (probe === unsubscribed) return undefined;
  const wake: Wake<string> & { network?: boolean } = {
    reason: wakeReason,
    subscribe: source.subscribe,
    ready: () => !source.holds(),
    network,
  };
  return { hold: () => (source.holds() ? { event: { type: 'pause', reason }, ms: Infinity, wake } : undefined), wake };
}
