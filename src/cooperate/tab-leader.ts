import { linkedController } from '../env/abortable.js';
import type { Environment } from '../env/environment.js';
import { sleepIn } from '../env/sleep.js';

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
  /** A new leader's first request goes out this long after the last leader's last one. */
  interval: number;
  /** Aborts when this tab no longer needs the loop. */
  stop: AbortSignal;
  /**
   * Polls as the leader until `signal` aborts, calling `publish` with every
   * body and when its request left, and `schedule` with the time its next
   * request is due whenever it starts a wait (interval, retry, cooldown).
   */
  lead(signal: AbortSignal, publish: (data: T, sentAt: number) => void, schedule: (at: number) => void): Promise<unknown>;
  /** The wait before a new leader's first request. */
  onTakeover(delay: number): void;
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
 * the browser frees its lock. Either way the next tab in the queue takes
 * over, its first request going out when the last leader's next one was
 * due: one interval after its last one, or later when it was waiting out a
 * Retry-After, a backoff or a cooldown.
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

  let lastSent: number | undefined;
  /** When the leader's next request is due: a new leader keeps its Retry-After, backoff or cooldown. */
  let nextAt: number | undefined;
  // A late message from the previous leader is still news, even once this tab leads.
  channel.onmessage = (event: MessageEvent<{ data: T; sentAt: number } | { nextAt: number }>) => {
    if (!leading) setRole('follower');
    if ('nextAt' in event.data) {
      nextAt = event.data.nextAt;
      return;
    }
    lastSent = event.data.sentAt;
    nextAt = undefined;
    share.deliver(event.data.data);
  };
  const post = (message: { data: T; sentAt: number } | { nextAt: number }): void => {
    try {
      channel.postMessage(message);
    } catch {
      // The channel closed with the last local caller, or a body cannot be cloned: it stays in
      // this tab, and the others poll for it when they lead.
    }
  };
  const schedule = (at: number): void => post({ nextAt: at });
  // Post before delivering: the last local caller leaving closes the channel.
  const publish = (data: T, sentAt: number): void => {
    post({ data, sentAt });
    share.deliver(data);
  };
  const compete = (): void => {
    if (stop.aborted || bid || hidden()) return;
    const { controller, release } = linkedController(stop);
    bid = controller;
    apis.locks
      .request(`pollite:${share.name}`, { signal: controller.signal }, async () => {
        leading = true;
        setRole('leader');
        let finished = false;
        try {
          // Keep the cadence across a handover: the first request goes out when
          // the last leader's next one was due (its interval, or a Retry-After,
          // backoff or cooldown it was waiting out), else one interval after its
          // last one, not at once. Even with no time left, yield once: the last
          // leader's final post may still be queued behind the lock it released.
          const delay =
            nextAt !== undefined
              ? Math.max(0, nextAt - env.now())
              : lastSent === undefined
                ? 0
                : Math.max(0, Math.min(share.interval, lastSent + share.interval - env.now()));
          if (delay > 0) share.onTakeover(delay);
          await sleepIn(env, delay, controller.signal);
          await share.lead(controller.signal, publish, schedule);
          finished = true;
        } finally {
          leading = false;
        }
        // Give the last post a head start over the lock's release. After a loop
        // that finished (the job is done), hold the lock one interval: the other
        // tabs learn the final body from the channel and leave the queue, rather
        // than winning the lock first and polling a finished job once more.
        await sleepIn(env, finished ? Math.max(share.interval, 50) : 0);
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
        bid?.abort();
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
