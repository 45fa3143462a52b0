import { sha256Hex, sleep } from '../kit/index.js';
import type { CheckpointStore } from '../resume/index.js';
import { CheckpointLeaseError } from './checkpoint-lease-error.js';
import { CLAIM, DROP, OPEN, ORPHANS, RELEASE, RENEW, SAVE, type CheckpointScript } from './checkpoint-scripts.js';
import { checkObject, positive, refuse } from './cluster-options.js';
import { clusterInternals } from './cluster-internals.js';
import type { Cluster } from './create-cluster.js';
import { withDeadline } from './deadline.js';
import { randomId } from './keys.js';

/** Options of {@link clusterCheckpoints}. Give every worker that may resume a call the same ones. */
export interface ClusterCheckpointOptions {
  /**
   * Names the store: its checkpoints and the list `orphans()` reads, all in
   * one hash slot of a Redis Cluster (`{name}`). Workers that take each
   * other's calls over use the same name.
   * @default 'default'
   */
  name?: string;
  /**
   * How long a worker's hold on a checkpoint lasts unless renewed, ms. The
   * store renews it every third of it while the worker holds it (from the
   * call's first write or `claim` until the call ends, or `release`), so a
   * worker that dies leaves an orphan within about this long. A worker
   * whose timers run later than this loses the checkpoint to another.
   * @default 15000
   */
  lease?: number;
  /**
   * How long a checkpoint is kept after its last write or renewal, ms: an
   * orphan that no worker claims within it is gone. A call that runs keeps
   * its checkpoint, however long it takes.
   * @default 86400000 (24 hours)
   */
  ttl?: number;
  /**
   * Longest wait for one Redis command of the store, ms. Past it, or when
   * Redis fails, the store's method rejects, and so does the call that
   * wrote (a checkpoint it cannot save would not be resumable).
   * @default 5000
   */
  timeout?: number;
}

/**
 * A {@link CheckpointStore} in Redis for a fleet of workers, made by
 * {@link clusterCheckpoints}: the store of `checkpoint()`, whose checkpoints
 * one worker at a time holds, through a lease. A worker that dies leaves
 * its checkpoints as orphans that another claims and resumes.
 */
export interface ClusterCheckpointStore extends CheckpointStore {
  /**
   * The checkpoint saved under `key`, or `undefined`. Called by a call that
   * opens it, it takes the checkpoint's lease for this worker: one held by
   * a worker that is gone (its lease running out) is waited for, at most
   * one `lease`; one whose worker renews it rejects with a
   * `CheckpointLeaseError` (`held`).
   */
  get(key: string): Promise<string | undefined>;
  /** Saves `value` under `key` and renews this worker's lease; rejects with a `CheckpointLeaseError` when another worker holds it, or took it over since. */
  set(key: string, value: string): Promise<void>;
  /** Deletes the checkpoint and stops this worker's lease; rejects with a `CheckpointLeaseError` when another worker holds it (nothing deleted). */
  delete(key: string): Promise<void>;
  /**
   * The keys of the checkpoints whose worker is gone: its lease ran out
   * (it died, froze, or was released), oldest first, at most `limit`.
   * Claim one before resuming it.
   * @example
   * for (const key of await store.orphans()) if (await store.claim(key)) void resume(key);
   */
  orphans(limit?: number): Promise<string[]>;
  /**
   * Takes an orphan's lease for this worker, atomically: of the workers
   * that claim one checkpoint, exactly one gets `true`. `false`: another
   * worker holds it, or it is gone. Then resume its call with the same key.
   */
  claim(key: string): Promise<boolean>;
  /**
   * Ends this worker's lease on `key` (or on every checkpoint it holds)
   * now, so another worker may claim it at once: after aborting calls at a
   * graceful shutdown. The checkpoints stay.
   */
  release(key?: string): Promise<void>;
}

/** The defaults of {@link ClusterCheckpointOptions}. */
export const CHECKPOINT_DEFAULTS = Object.freeze({ name: 'default', lease: 15_000, ttl: 86_400_000, timeout: 5_000 });

const OPTION_NAMES: ReadonlyArray<keyof ClusterCheckpointOptions> = ['name', 'lease', 'ttl', 'timeout'];

/** The keys of a store's name: the index of its checkpoints, and a checkpoint's hash (named by its key's SHA-256). */
export const checkpointKeys = async (prefix: string, name: string, key?: string): Promise<{ index: string; checkpoint: string }> => {
  const index = `${prefix}ckpt:{${name}}`;
  return { index, checkpoint: key === undefined ? '' : `${index}:${await sha256Hex(key)}` };
};

/** A reply of OPEN, SAVE, DROP: { code, text }. */
const pair = (reply: unknown): [number, string] => {
  const [code, text] = Array.isArray(reply) ? reply : [reply, ''];
  return [Number(code), String(text ?? '')];
};

/**
 * A checkpoint store in the cluster's Redis for `checkpoint()` of
 * `pollite/resume`: a call a worker was running when it died is taken over
 * by another (`orphans()`, `claim()`), the server's pending wait kept.
 * Unlike the rest of the cluster it does not degrade: a write Redis fails
 * rejects the call. See docs/resume.md.
 *
 * @example
 * const store = clusterCheckpoints(cluster, { name: 'reports' });
 * await pollOperation(start, { method: 'POST', body, operation: { idempotencyKey: true, resume: checkpoint({ store, key: `report:${month}` }) } });
 */
export function clusterCheckpoints(cluster: Cluster, options: ClusterCheckpointOptions = {}): ClusterCheckpointStore {
  // Each worker's store has a token of its own, and holds the lease of each checkpoint it opened, wrote or
  // claimed, renewing it on a timer (one that keeps no process alive) until the call deletes it or it is released.
  const { redis, prefix } = clusterInternals.get(cluster) ?? refuse('cluster', 'a cluster made by createCluster()');
  checkObject(options, OPTION_NAMES);
  const { name = CHECKPOINT_DEFAULTS.name } = options;
  if (typeof name !== 'string' || name === '') refuse('name', 'a non-empty string');
  const lease = positive('lease', options.lease, 100, CHECKPOINT_DEFAULTS.lease);
  const ttl = positive('ttl', options.ttl, lease, CHECKPOINT_DEFAULTS.ttl);
  const timeout = positive('timeout', options.timeout, 1, CHECKPOINT_DEFAULTS.timeout);
  const token = randomId();
  /** The checkpoints this store took the lease of (for fencing: a write after it was lost is refused), and their renewal timers. */
  const holding = new Set<string>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();

  const run = async (script: CheckpointScript, key: string | undefined, args: ReadonlyArray<string | number>): Promise<unknown> => {
    const { index, checkpoint } = await checkpointKeys(prefix, name, key);
    const keys = key === undefined ? [index] : [checkpoint, index];
    return withDeadline((expired) => redis.send(['EVAL', script.source, String(keys.length), ...keys, ...args.map(String)], expired), timeout);
  };
  const leaseArgs = (key: string): Array<string | number> => [token, Math.ceil(lease), Math.ceil(ttl), key];

  const stop = (key: string): void => {
    clearTimeout(timers.get(key));
    timers.delete(key);
  };
  /** Renews `key`'s lease every third of it while this store holds it; a lease found lost stops it (the next write is refused). */
  const renew = (key: string): void => {
    holding.add(key);
    if (timers.has(key)) return;
    const next = (): void => {
      const timer = setTimeout(async () => {
        let ours = true;
        try {
          ours = Number(await run(RENEW, key, leaseArgs(key))) === 1;
        } catch {
          // Redis failed: tried again next time; the lease may run out meanwhile, and the next write then says so.
        }
        if (timers.get(key) !== timer) return;
        timers.delete(key);
        if (ours) next();
      }, lease / 3);
      (timer as { unref?: () => void }).unref?.();
      timers.set(key, timer);
    };
    next();
  };
  const held = (key: string, ms: string): CheckpointLeaseError =>
    new CheckpointLeaseError('held', key, `is held by another worker (its lease has ${ms} ms left): that worker runs the call`);
  const lost = (key: string): CheckpointLeaseError =>
    new CheckpointLeaseError('lost', key, 'was taken over by another worker, or is gone from Redis (finished elsewhere, expired or flushed), since this worker held it');

  return {
    async get(key) {
      for (let tries = 0; ; tries += 1) {
        const [code, text] = pair(await run(OPEN, key, leaseArgs(key)));
        if (code === 1) {
          renew(key);
          return text;
        }
        if (code === 0) {
          // None: a new call, which no lease this store once held (and lost) may refuse.
          holding.delete(key);
          stop(key);
          return undefined;
        }
        // Held: a worker that died leaves its lease to run out; one that renews it is alive.
        if (tries > 0) throw held(key, text);
        await sleep(Math.min(Number(text), lease) + 20);
      }
    },
    async set(key, value) {
      const [code, text] = pair(await run(SAVE, key, [...leaseArgs(key), value, holding.has(key) ? '1' : '0']));
      if (code === 1) return renew(key);
      stop(key);
      if (code === -1) throw lost(key);
      throw code === 0 ? held(key, text) : new CheckpointLeaseError('held', key, 'was written by another worker since this call read it');
    },
    async delete(key) {
      const had = holding.delete(key);
      stop(key);
      const [code, text] = pair(await run(DROP, key, [token, key, had ? '1' : '0']));
      if (code === 0) throw held(key, text);
      if (code === -1) throw lost(key);
    },
    async orphans(limit = 100) {
      if (!Number.isInteger(limit) || limit < 1) refuse('limit', 'a positive integer');
      const reply = await run(ORPHANS, undefined, [Math.ceil(ttl), Math.ceil(lease), limit]);
      return Array.isArray(reply) ? reply.map(String) : [];
    },
    async claim(key) {
      const ours = Number(await run(CLAIM, key, leaseArgs(key))) === 1;
      if (ours) renew(key);
      return ours;
    },
    async release(key) {
      const keys = key === undefined ? [...holding] : [key];
      for (const each of keys) {
        holding.delete(each);
        stop(each);
      }
      await Promise.all(keys.map((each) => run(RELEASE, each, [token, each])));
    },
  };
}
