import { link } from '../env/link.js';
import { wait } from '../env/wait.js';
import type { Environment } from '../index.js';

export interface LockManagerLike {
  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<unknown>): Promise<unknown>;
}

/** The two browser APIs tab sharing needs. */
export interface TabApis {
  locks: LockManagerLike;
  Channel: typeof BroadcastChannel;
}

/** The two browser APIs tab sharing needs, or undefined where either is missing (or the SHA-256 that names them: Web Locks and it come with a secure context). */
export function tabApis(): TabApis | undefined {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
  const Channel = (globalThis as { BroadcastChannel?: typeof BroadcastChannel }).BroadcastChannel;
  const hashes = typeof (globalThis as { crypto?: Crypto }).crypto?.subtle?.digest === 'function';
  return locks && typeof locks.request === 'function' && typeof Channel === 'function' && hashes ? { locks, Channel } : undefined;
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
  /**
   * The longest wait a new leader keeps of what the last one said was
   * pending, ms: a longer one is cut to it (a time that is not a finite
   * number is ignored, as is a message that is not an object).
   * @default Infinity
   */
  longestWait?: number;
  /** Aborts when this tab no longer needs the loop. */
  stop: AbortSignal;
  /**
   * Polls as the leader until `signal` aborts, or resolves when this tab's
   * callers are done (the lock is then held one interval more): waits
   * `delay` first (the old leader's pending wait), calls `publish` with
   * every body and when its request left, awaiting it (it settles once this
   * tab's callers have the body), and `schedule` with the time its next
   * request is due whenever it starts a wait (interval, retry, hold).
   */
  lead(signal: AbortSignal, delay: number, publish: (data: T, sentAt: number) => Promise<void>, schedule: (at: number) => void): Promise<unknown>;
  /** Hands a body (this tab's or another's) to this tab's callers; settles once they have it. */
  deliver(data: T): Promise<void>;
  /** A poll error the leader met: this tab's callers reject with it. */
  fail(error: unknown): void;
  onRole(role: 'leader' | 'follower'): void;
}

type Message<T> = { data: T; sentAt: number } | { nextAt: number };

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
export function shareAcrossTabs<T>(share: TabShare<T>, apis: TabApis): void {
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
  channel.onmessage = (event: MessageEvent<Message<T>>) => {
    if (typeof event.data !== 'object' || event.data === null) return;
    if (!leading) setRole('follower');
    if ('nextAt' in event.data) {
      nextAt = Number.isFinite(event.data.nextAt) ? event.data.nextAt : undefined;
      return;
    }
    lastSent = Number.isFinite(event.data.sentAt) ? event.data.sentAt : undefined;
    nextAt = undefined;
    void share.deliver(event.data.data);
  };
  const post = (message: Message<T>): void => {
    try {
      channel.postMessage(message);
    } catch {
      // The channel closed with the last local caller, or a body cannot be cloned: it stays in
      // this tab, and the others poll for it when they lead.
    }
  };
  const schedule = (at: number): void => post({ nextAt: at });
  // Post before delivering: the last local caller leaving closes the channel.
  const publish = (data: T, sentAt: number): Promise<void> => {
    post({ data, sentAt });
    return share.deliver(data);
  };
  const lead = async (signal: AbortSignal): Promise<void> => {
    leading = true;
    setRole('leader');
    let finished = false;
    try {
      // Yield once first: the last leader's final post may still be queued behind the lock it released.
      await wait(env, 0, signal);
      // Keep the cadence across a handover: the first request goes out when the last leader's next one
      // was due (its interval, or a Retry-After, backoff or cooldown it was waiting out), else one
      // interval after its last one, not at once. Measured after the yield, however late it ran: the
      // same instant as the last leader's, not as many ms later.
      const delay =
        nextAt !== undefined
          ? Math.max(0, Math.min(share.longestWait ?? Infinity, nextAt - env.now()))
          : lastSent === undefined
            ? 0
            : Math.max(0, Math.min(share.interval, lastSent + share.interval - env.now()));
      await share.lead(signal, delay, publish, schedule);
      finished = true;
    } finally {
      leading = false;
    }
    // Give the last post a head start over the lock's release. After a loop that finished (the job is
    // done), hold the lock one interval: the other tabs learn the final body from the channel and leave
    // the queue, rather than winning the lock first and polling a finished job once more.
    await wait(env, finished ? Math.max(share.interval, 50) : 0);
  };
  const compete = (): void => {
    if (stop.aborted || bid || hidden()) return;
    const { controller, release } = link(stop);
    bid = controller;
    apis.locks
      .request(`pollite:${share.name}`, { signal: controller.signal }, () => lead(controller.signal))
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
