import type { PollCall, PollFeature, PollRunner } from '../index.js';
import { CLUSTER_DEFAULTS, CLUSTER_OPTION_NAMES, checkObject, positive, refuse, type ClusterShareOptions, type ClusterStatus } from './cluster-options.js';
import { JobShare } from './job-share.js';
import { shareIdentity } from '../cooperate/index.js';
import { jobKeys, randomId, sha256 } from './keys.js';
import { LocalCallers } from './local-callers.js';
import type { ClusterStore } from './store.js';

/** What every share of one cluster has in common. */
export interface ShareContext {
  store: ClusterStore;
  prefix: string;
  lease: number;
  report(status: ClusterStatus): void;
  /** This process's jobs, by what makes two polls the same one: callers of one job in this process join one share. */
  jobs: Map<string, { local: LocalCallers; job?: JobShare }>;
}

/** The size of `text` in UTF-8 when it is over `max`, else undefined (measured only when it may be: a character is at most 3 bytes). */
const tooLarge = (text: string, max: number): number | undefined => {
  if (text.length * 3 <= max) return undefined;
  const bytes = new TextEncoder().encode(text).length;
  return bytes > max ? bytes : undefined;
};

/** What a share publishes of a body: its (selected) JSON, within `maxBytes`; undefined when it publishes nothing. */
function encoder(options: ClusterShareOptions, report: (status: ClusterStatus) => void): (data: unknown) => string | undefined {
  const { publish = CLUSTER_DEFAULTS.publish, select } = options;
  if (typeof publish !== 'boolean') refuse('publish', 'a boolean');
  if (select !== undefined && typeof select !== 'function') refuse('select', 'a function');
  const maxBytes = positive('maxBytes', options.maxBytes, 0, CLUSTER_DEFAULTS.maxBytes);
  if (!publish) return () => undefined;
  return (data) => {
    let text: string | undefined;
    try {
      text = JSON.stringify(select ? select(data) : data);
      if (text === undefined) throw new TypeError('The body has no JSON');
    } catch (error) {
      report({ type: 'unpublished', reason: 'error', error });
      return undefined;
    }
    const bytes = tooLarge(text, maxBytes);
    if (bytes === undefined) return text;
    report({ type: 'unpublished', reason: 'too-large', bytes });
    return undefined;
  };
}

/** Runs `call`'s loop for the callers of this process alone (a poll that cannot be one job across processes). */
function runHere(local: LocalCallers, call: PollCall<unknown>, next: PollRunner): void {
  const sink = {
    update: async (data: unknown) => {
      await local.deliver(data);
      return local.size === 0;
    },
    event: local.emit.bind(local),
  };
  // In a promise: a feature after this one whose `run` throws at once fails the callers, as a rejection would.
  new Promise<unknown>((run) => run(next({ ...call, sink, signal: local.stop.signal, timeout: undefined }))).catch((error: unknown) => {
    if (!local.stop.signal.aborted) local.fail(error);
  });
}

/**
 * One poller per job for the whole cluster, as a poll feature: polls of
 * the same request (method, URL, headers, body, what of `init` fetch reads;
 * hashed, never stored) in this process join one set of callers, and the
 * processes elect one leader for it through Redis. See {@link JobShare}.
 * A poll with a `fetch`, `parse`, object in `init` or later feature of its
 * own is one job across processes only under a `key` (see
 * {@link ClusterShareOptions.key}); without one it is shared within this
 * process only (`share` event, role `local`).
 */
export function shareFeature(ctx: ShareContext, options: ClusterShareOptions = {}): PollFeature {
  checkObject(options, CLUSTER_OPTION_NAMES.share);
  const encode = encoder(options, ctx.report);
  const { key } = options;
  if (key !== undefined && typeof key !== 'function' && (typeof key !== 'string' || key === '')) refuse('key', 'a non-empty string or a function');
  const feature: PollFeature = {
    run(call, next) {
      const same = shareIdentity(call as PollCall<unknown>, { key, feature });
      if (same === undefined) return next(call);
      if (same.local) call.sink.event({ type: 'share', role: 'local', reason: same.local });
      // The same Map for both: a job's material starts with its method, upper-cased, never with `local `.
      const material = same.local ? `local ${same.key}` : same.key;
      const running = ctx.jobs.get(material);
      if (running) {
        const joined = running.local.join(call);
        const role = running.job?.shown;
        if (role) call.sink.event({ type: 'share', role });
        return joined;
      }
      const local = new LocalCallers();
      const entry: { local: LocalCallers; job?: JobShare } = { local };
      ctx.jobs.set(material, entry);
      local.stop.signal.addEventListener('abort', () => ctx.jobs.get(material) === entry && ctx.jobs.delete(material), { once: true });
      const joined = local.join(call);
      if (same.local) {
        runHere(local, call as PollCall<unknown>, next);
        return joined;
      }
      sha256(material).then(
        (hash) => {
          if (local.stop.signal.aborted) return;
          const spec = { store: ctx.store, keys: jobKeys(ctx.prefix, hash), lease: ctx.lease, token: randomId(), encode };
          entry.job = new JobShare(spec, local, call as Parameters<typeof next>[0], next);
          entry.job.start();
        },
        (error: unknown) => local.fail(error),
      );
      return joined;
    },
  };
  return feature;
}
