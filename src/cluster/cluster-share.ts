import { sha256Hex, shareIdentity, type PollCall, type PollFeature, type SharedLoop, type SharedLoops } from '../kit/index.js';
import { CLUSTER_DEFAULTS, CLUSTER_OPTION_NAMES, checkObject, positive, refuse, type ClusterShareOptions, type ClusterStatus } from './cluster-options.js';
import { JobShare } from './job-share.js';
import { jobKeys, randomId } from './keys.js';
import type { ClusterStore } from './store.js';

/** What every share of one cluster has in common. */
export interface ShareContext {
  store: ClusterStore;
  prefix: string;
  lease: number;
  report(status: ClusterStatus): void;
  /** This process's jobs, by what makes two polls the same one: callers of one job in this process join one loop. */
  loops: SharedLoops;
  /** The share across processes of each loop that has one (a job that is one job across processes, once hashed). */
  jobs: WeakMap<SharedLoop, JobShare>;
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
  const maxAge = options.maxAge === undefined ? undefined : positive('maxAge', options.maxAge, 0, 0);
  const feature: PollFeature = {
    run(call, next) {
      const same = shareIdentity(call as PollCall<unknown>, { key, feature });
      if (same === undefined) return next(call);
      if (same.local) call.sink.event({ type: 'share', role: 'local', reason: same.local });
      // The same registry for both: a job's material starts with its method, upper-cased, never with `local `.
      const material = same.local ? `local ${same.key}` : same.key;
      const running = ctx.loops.get(material);
      const joined = ctx.loops.join(material, call, (loop) => {
        if (same.local) {
          loop.run(call as PollCall<unknown>, next);
          return;
        }
        sha256Hex(material).then(
          (hash) => {
            if (loop.signal.aborted) return;
            const spec = { store: ctx.store, keys: jobKeys(ctx.prefix, hash), lease: ctx.lease, token: randomId(), encode, maxAge };
            const job = new JobShare(spec, loop, call as PollCall<unknown>, next);
            ctx.jobs.set(loop, job);
            job.start();
          },
          (error: unknown) => loop.fail(error),
        );
      });
      const role = running && ctx.jobs.get(running)?.shown;
      if (role) call.sink.event({ type: 'share', role });
      return joined;
    },
  };
  return feature;
}
