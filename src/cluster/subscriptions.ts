import { realClock, startTimer } from '../kit/index.js';
import type { ClusterRedis } from './cluster-redis.js';

/** A SUBSCRIBE refused while the connection said it was ready (or could not tell) is tried again this much later, ms. */
export const RESUBSCRIBE_PAUSE = 1000;

type Deliver = (message: string) => void;

/** The connection an adapter subscribes on (a duplicate of the client, or a cluster client's own pub/sub). */
export interface SubscriberLink {
  /** Whether it can take a SUBSCRIBE now; undefined when the client does not say. */
  ready(): boolean | undefined;
  /** Calls `listener` each time it is ready again (after connecting, after a reconnect); returns the unsubscribe. Absent: the client has no such event. */
  onReady?(listener: () => void): () => void;
  /** Subscribes `deliver` to `channel`. */
  subscribe(channel: string, deliver: Deliver): Promise<unknown>;
  /** Unsubscribes `deliver` from `channel`. */
  unsubscribe(channel: string, deliver: Deliver): Promise<unknown>;
  /** Closes what the adapter opened; `subscribed` is what is still subscribed on it (a shared connection unsubscribes it). */
  close(subscribed: ReadonlyMap<string, Deliver>): Promise<void>;
}

/**
 * The channels this process's jobs listen to, kept subscribed on a
 * connection that may not be ready yet or may drop: a client with its
 * offline queue off refuses a SUBSCRIBE sent before it is ready, and any
 * client drops one sent while Redis is down (after its retries). Each
 * change is made in order, one at a time, once the connection is ready; a
 * refused one is made again when it is ready next (or, where the client
 * cannot say, `RESUBSCRIBE_PAUSE` later). The connection is opened on the
 * first subscription. A subscription's promise resolves once it is made,
 * or no longer wanted; it never rejects.
 */
export function subscriptions(open: () => SubscriberLink): Pick<ClusterRedis, 'subscribe' | 'unsubscribe' | 'close'> {
  let link: SubscriberLink | undefined;
  let closed = false;
  /** What each channel's listeners are, while any are. */
  const wanted = new Map<string, Set<Deliver>>();
  /** What is subscribed on the connection: one deliverer a channel, calling the channel's listeners. */
  const subscribed = new Map<string, Deliver>();
  /** Callers waiting for their channel's change (a subscription, or the end of one) to be made. */
  const waiting = new Map<string, Array<() => void>>();
  /** Wakes the loop that waits for the connection, or for the pause. */
  let wake: (() => void) | undefined;
  let syncing = false;

  const settle = (channel: string): void => {
    for (const resolve of waiting.get(channel) ?? []) resolve();
    waiting.delete(channel);
  };
  /** A promise for the change now wanted on `channel`, made by the loop; a change wanted before is moot: its callers are let go. */
  const change = (channel: string): Promise<void> => {
    settle(channel);
    if (wanted.has(channel) === subscribed.has(channel)) return Promise.resolve();
    const made = new Promise<void>((resolve) => waiting.set(channel, [resolve]));
    void sync();
    return made;
  };
  const deliverer =
    (channel: string): Deliver =>
    (message) => {
      for (const listener of [...(wanted.get(channel) ?? [])]) listener(message);
    };
  /** The next change to make: a channel wanted but not subscribed, or subscribed but no longer wanted. */
  const nextChange = (): { channel: string; add: boolean } | undefined => {
    for (const channel of wanted.keys()) if (!subscribed.has(channel)) return { channel, add: true };
    for (const channel of subscribed.keys()) if (!wanted.has(channel)) return { channel, add: false };
    return undefined;
  };
  /** Resolves once `link` is ready (or closed); after a refusal on a connection that says it is ready (or cannot say), after a pause. */
  const whenReady = (connection: SubscriberLink, refused: boolean): Promise<void> => {
    const ready = connection.ready();
    if (ready !== false && !refused) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const stops: Array<() => void> = [];
      const done = (): void => {
        wake = undefined;
        for (const stop of stops) stop();
        resolve();
      };
      wake = done;
      if (ready === false && connection.onReady) stops.push(connection.onReady(done));
      else stops.push(startTimer(realClock, RESUBSCRIBE_PAUSE, done));
    });
  };
  const sync = async (): Promise<void> => {
    if (syncing) return;
    let connection: SubscriberLink;
    try {
      connection = link ??= open();
    } catch {
      // The client could not make a connection (duplicate() threw): nothing is subscribed (the next change tries again); polling goes on without messages.
      for (const channel of [...waiting.keys()]) settle(channel);
      return;
    }
    syncing = true;
    let refused = false;
    for (let next = nextChange(); next && !closed; next = nextChange()) {
      await whenReady(connection, refused);
      next = nextChange();
      if (!next || closed) break;
      const { channel, add } = next;
      try {
        if (add) {
          const deliver = deliverer(channel);
          await connection.subscribe(channel, deliver);
          // Closed meanwhile: a connection that is not pollite's own must not keep it.
          if (closed) void connection.unsubscribe(channel, deliver).catch(() => undefined);
          else subscribed.set(channel, deliver);
        } else {
          await connection.unsubscribe(channel, subscribed.get(channel)!);
          subscribed.delete(channel);
        }
        if (wanted.has(channel) === subscribed.has(channel)) settle(channel);
        refused = false;
      } catch {
        refused = true;
      }
    }
    // Every change asked for meanwhile was seen by the loop: nothing awaits between its last look and here.
    syncing = false;
  };
  return {
    subscribe(channel, listener) {
      if (closed) return Promise.resolve();
      const listeners = wanted.get(channel);
      if (listeners) {
        listeners.add(listener);
        return waiting.has(channel) ? new Promise((resolve) => waiting.get(channel)!.push(resolve)) : Promise.resolve();
      }
      wanted.set(channel, new Set([listener]));
      return change(channel);
    },
    unsubscribe(channel, listener) {
      const listeners = wanted.get(channel);
      if (!listeners?.delete(listener) || listeners.size > 0) return Promise.resolve();
      wanted.delete(channel);
      return change(channel);
    },
    async close() {
      closed = true;
      wake?.();
      for (const channel of [...waiting.keys()]) settle(channel);
      wanted.clear();
      const open = link;
      link = undefined;
      await open?.close(new Map(subscribed));
      subscribed.clear();
    },
  };
}
