import type { ClusterStatus } from './cluster-options.js';
import { withDeadline } from './deadline.js';
import type { ClusterRedis } from './cluster-redis.js';
import type { LuaScript } from './scripts.js';

/** What a Redis operation resolves with when Redis failed, or did not answer within the deadline. */
export const FAULT: unique symbol = Symbol('pollite/cluster: Redis fault');
export type Fault = typeof FAULT;

const hexOf = (bytes: ArrayBuffer): string => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** The SHA-1 (EVALSHA) of a script. */
const shaOf = async (source: string): Promise<string> => hexOf(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(source)));

/** The errors of a Redis that is up but takes no writes: out of memory under `noeviction`, a read-only replica, a failed save, too few replicas. */
const REFUSES_WRITES = /^(?:\w+: )?(?:OOM|READONLY|MISCONF|NOREPLICAS)\b/;
const messageOf = (error: unknown): string => String((error as Error | undefined)?.message ?? error);

/** How the cluster reaches Redis: every operation bounded by the deadline, and a fault never thrown. */
export interface ClusterStore {
  /** Runs `script`: its reply, or FAULT (Redis failed, was too slow, or is known to be down). Never rejects. */
  run(script: LuaScript, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown>;
  /** Subscribes `listener` to `channel` (a failure is the client's to retry); returns the unsubscribe. */
  subscribe(channel: string, listener: (message: string) => void): () => void;
  /** Calls `listener` whenever the store goes down or comes back, so that jobs check at once. */
  onChange(listener: () => void): () => void;
  /** Whether the last operation reached Redis. */
  readonly connected: boolean;
  close(): Promise<void>;
}

export interface StoreOptions {
  deadline: number;
  /** After a fault, operations fail at once for this long, ms; then one tries again. */
  recheck: number;
  /** Told when Redis goes and comes back; must not throw. */
  onStatus?: (status: ClusterStatus) => void;
}

/**
 * The cluster's one way to Redis. Each operation has `deadline` ms; after
 * a fault (an error, or no answer in time) operations fail at once for
 * `recheck` ms, so a Redis that hangs costs each poller one deadline, not
 * one per request; the first operation after that tries again, and its
 * success brings cooperation back. A Redis that refuses writes but serves
 * reads (`maxmemory` with `noeviction`) is a fault until a write succeeds:
 * reads still answer, and the status says `local` once, not on every read.
 */
export function clusterStore(redis: ClusterRedis, o: StoreOptions): ClusterStore {
  let connected = true;
  let closed = false;
  let quietUntil = 0;
  /** Redis refused a write (OOM at `maxmemory` under `noeviction`, a read-only replica, a failed save): only a write brings `connected` back. */
  let writesRefused = false;
  const listeners = new Set<() => void>();
  const changed = (status: ClusterStatus): void => {
    o.onStatus?.(status);
    for (const listener of [...listeners]) listener();
  };
  const down = (error: unknown): void => {
    quietUntil = Date.now() + o.recheck;
    if (!connected) return;
    connected = false;
    changed({ type: 'local', error });
  };
  const up = (): void => {
    quietUntil = 0;
    writesRefused = false;
    if (connected) return;
    connected = true;
    changed({ type: 'connected' });
  };
  /** Scripts this store has sent whole once: Redis has them, and they go by their SHA-1 from then on. */
  const sent = new Set<LuaScript>();
  const evaluate = async (script: LuaScript, keys: readonly string[], args: readonly string[], expired: AbortSignal): Promise<unknown> => {
    const whole = ['EVAL', script.source, String(keys.length), ...keys, ...args];
    script.sha ??= shaOf(script.source);
    // The first time, the whole script: one round trip rather than a NOSCRIPT and a second one.
    if (!sent.has(script)) {
      const reply = await redis.send(whole, expired);
      sent.add(script);
      return reply;
    }
    const sha = await script.sha;
    try {
      return await redis.send(['EVALSHA', sha, String(keys.length), ...keys, ...args], expired);
    } catch (error) {
      // A restarted Redis (or another node of a Redis Cluster) does not know the script: send it whole, once.
      if (!String((error as Error | undefined)?.message).includes('NOSCRIPT') || expired.aborted) throw error;
      return redis.send(whole, expired);
    }
  };
  // A dropped connection is a fault at once (no need to wait for an operation to fail); a ready one is worth trying at once.
  const unwatch = redis.watch?.((ready) => {
    if (!ready) return down(new Error('Redis connection lost'));
    quietUntil = 0;
    for (const listener of [...listeners]) listener();
  });
  return {
    get connected() {
      return connected && !closed;
    },
    async run(script, keys, args) {
      if (closed || Date.now() < quietUntil) return FAULT;
      try {
        const reply = await withDeadline((expired) => evaluate(script, keys, args.map(String), expired), o.deadline);
        // While Redis refuses writes it still serves reads: a read that succeeds proves nothing, and must not flap the status.
        if (!writesRefused || script.writes?.(reply)) up();
        return reply;
      } catch (error) {
        if (REFUSES_WRITES.test(messageOf(error))) writesRefused = true;
        down(error);
        return FAULT;
      }
    },
    subscribe(channel, listener) {
      if (closed) return () => undefined;
      redis.subscribe(channel, listener).catch(() => undefined);
      return () => void redis.unsubscribe(channel, listener).catch(() => undefined);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      unwatch?.();
      listeners.clear();
      await redis.close();
    },
  };
}
