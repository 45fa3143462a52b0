import { afterEach } from 'vitest';

/**
 * A fake Web Locks manager with the real semantics (one holder, requests
 * granted in order, a signal cancels a pending request only); `held` says
 * whether some callback holds the lock now, `names` lists every name asked
 * for. (One lock whatever the name: the tests' other tabs ask under names of
 * their own.)
 */
export function fakeLocks() {
  let held = false;
  const names: string[] = [];
  const queue: Array<() => void> = [];
  const next = (): void => {
    const grant = queue.shift();
    if (grant) grant();
    else held = false;
  };
  return {
    held: () => held,
    names,
    request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<unknown>): Promise<unknown> {
      names.push(name);
      return new Promise((resolve, reject) => {
        const { signal } = options;
        if (signal?.aborted) return reject(signal.reason);
        const grant = (): void => {
          held = true;
          signal?.removeEventListener('abort', onAbort);
          callback().then(resolve, reject).finally(next);
        };
        const onAbort = (): void => {
          const index = queue.indexOf(grant);
          if (index < 0) return;
          queue.splice(index, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort);
        if (held) queue.push(grant);
        else grant();
      });
    },
  };
}

const channels: BroadcastChannel[] = [];
/** Node's real BroadcastChannel, closed after each test of the file that imports it. */
export class TrackedChannel extends BroadcastChannel {
  constructor(name: string) {
    super(name);
    channels.push(this);
  }
}
afterEach(() => {
  for (const channel of channels.splice(0)) channel.close();
});

/** `navigator` as it was when the tests began: {@link restoreNavigator} puts it back. */
const savedNavigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');

/** A fresh {@link fakeLocks} as this realm's `navigator.locks` (beforeEach); {@link restoreNavigator} undoes it (afterEach). */
export function installFakeLocks(): ReturnType<typeof fakeLocks> {
  const locks = fakeLocks();
  Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true });
  return locks;
}

/** Puts back the `navigator` of before {@link installFakeLocks} (none in Node 20). */
export function restoreNavigator(): void {
  if (savedNavigator) Object.defineProperty(globalThis, 'navigator', savedNavigator);
  else delete (globalThis as { navigator?: unknown }).navigator;
}
