/** The part of an event emitter the adapters use. */
export interface Emitter {
  /** Calls `listener` on each `event` (`ready`, `error`, `end`...). */
  on(event: string, listener: (...args: never[]) => void): unknown;
  /** Stops calling `listener` on `event`. */
  off(event: string, listener: (...args: never[]) => void): unknown;
}

export const notReady = (): Promise<never> => Promise.reject(new Error('Redis is not connected'));

/** A client's connection as an adapter sees it: how it says it is ready, and how it says it failed. */
export interface ConnectionEvents {
  /** The event that says the client is ready for commands. */
  up: string;
  /** The events that say a connection attempt failed or dropped. */
  down: readonly string[];
}

/**
 * Resolves when `client` says it is ready; rejects ("Redis is not
 * connected") when it says its connection failed, or when `signal` is
 * aborted (the deadline passed: nothing is sent late). For a client handed
 * over while it makes its first connection: its first commands wait for it
 * rather than fail, so a process does not start `local`.
 */
export function whenConnected(client: Emitter, events: ConnectionEvents, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const settle = (ok: boolean): void => {
      client.off(events.up, up);
      for (const event of events.down) client.off(event, down);
      signal?.removeEventListener('abort', down);
      if (ok) resolve();
      else reject(new Error('Redis is not connected'));
    };
    const up = (): void => settle(true);
    const down = (): void => settle(false);
    if (signal?.aborted) return down();
    client.on(events.up, up);
    for (const event of events.down) client.on(event, down);
    signal?.addEventListener('abort', down, { once: true });
  });
}

/** Watches a client's connection through its ready event and the events that mean it dropped. */
export function watcher(client: Emitter, events: ConnectionEvents): (listener: (ready: boolean) => void) => () => void {
  return (listener) => {
    const up = (): void => listener(true);
    const lost = (): void => listener(false);
    client.on(events.up, up);
    for (const event of events.down) client.on(event, lost);
    return () => {
      client.off(events.up, up);
      for (const event of events.down) client.off(event, lost);
    };
  };
}
