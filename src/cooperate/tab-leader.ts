import type { Environment } from '../env/environment.js';
import { linkedController } from '../env/abortable.js';

interface LockManagerLike {
  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<unknown>): Promise<unknown>;
}

/** The two browser APIs tab sharing needs, or undefined where either is missing. */
export function tabApis(): { locks: LockManagerLike; Channel: typeof BroadcastChannel } | undefined {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
  const Channel = (globalThis as { BroadcastChannel?: typeof BroadcastChannel }).BroadcastChannel;
  return locks && typeof locks.request === 'function' && typeof Channel === 'function' ? { locks, Channel } : undefined;
}

/** How one tab takes part in a loop shared across tabs. */
export interface TabShare<T> {
  /** Names the Web Lock and the BroadcastChannel: the same poll in every tab. */
  name: string;
  env: Environment;
  /** Whether a hidden tab steps down (and a hidden tab never leads). */
  pauseWhenHidden: boolean;
  /** Aborts when this tab no longer needs the loop. */
  stop: AbortSignal;
  /** Polls as the leader until `signal` aborts, calling `publish` with every body. */
  lead(signal: AbortSignal, publish: (data: T) => void): Promise<unknown>;
  /** Hands a body (this tab's or another's) to this tab's callers. */
  deliver(data: T): void;
  /** A poll error the leader met: this tab's callers reject with it. */
  fail(error: unknown): void;
  onRole(role: 'leader' | 'follower'): void;
}

/**
 * One tab polls for all: every visible tab queues for the Web Lock `name`;
 * the holder polls and posts each body on the BroadcastChannel `name`, the
 * others only listen. A tab that is hidden (with `pauseWhenHidden`) leaves
 * the queue and, if it leads, steps down at once; when a leading tab closes
 * the browser frees its lock. Either way the next tab in the queue polls at
 * once.
 */
export function shareAcrossTabs<T>(share: TabShare<T>, apis: NonNullable<ReturnType<typeof tabApis>>): void {
  const { env, stop } = share;
  const channel = new apis.Channel(`pollite:${share.name}`);
  let leading = false;
  let role: 'leader' | 'follower' | undefined;
  let bid: AbortController | undefined;
  const setRole = (next: 'leader' | 'follower'): void => {
    if (role !== next) share.onRole((role = next));
  };
  const hidden = (): boolean => share.pauseWhenHidden && env.visibility.hidden();

  channel.onmessage = (event: MessageEvent<{ data: T }>) => {
    if (leading) return;
    setRole('follower');
    share.deliver(event.data.data);
  };
  const publish = (data: T): void => {
    share.deliver(data);
    try {
      channel.postMessage({ data });
    } catch {
      // A body that cannot be cloned stays in this tab; the others will poll for it when they lead.
    }
  };
  const compete = (): void => {
    if (stop.aborted || bid || hidden()) return;
    const { controller, release } = linkedController(stop);
    bid = controller;
    apis.locks
      .request(`pollite:${share.name}`, { signal: controller.signal }, async () => {
        leading = true;
        setRole('leader');
        try {
          await share.lead(controller.signal, publish);
        } finally {
          leading = false;
        }
      })
      .catch((error: unknown) => {
        // Stepping down (hidden) or leaving (stop) is not an error.
        if (!controller.signal.aborted) share.fail(error);
      })
      .finally(() => {
        release();
        if (bid === controller) bid = undefined;
        if (!stop.aborted && !leading) compete();
      });
  };
  const unsubscribe = share.pauseWhenHidden
    ? env.visibility.subscribe(() => {
        if (!hidden()) return compete();
        bid?.abort(new DOMException('The tab was hidden', 'AbortError'));
        bid = undefined;
      })
    : () => undefined;
  stop.addEventListener(
    'abort',
    () => {
      unsubscribe();
      channel.close();
    },
    { once: true },
  );
  compete();
}
