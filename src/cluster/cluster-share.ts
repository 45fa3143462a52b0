import type { PollFeature } from '../index.js';
import { CLUSTER_DEFAULTS, positive, refuse, type ClusterShareOptions, type ClusterStatus } from './cluster-options.js';
import { JobShare } from './job-share.js';
import { shareKey } from '../cooperate/index.js';
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

/**
 * One poller per job for the whole cluster, as a poll feature: polls of
 * the same request (method, URL, headers, body: hashed, never stored) in
 * this process join one set of callers, and the processes elect one
 * leader for it through Redis. See {@link JobShare}.
 */
export function shareFeature(ctx: ShareContext, options: ClusterShareOptions = {}): PollFeature {
  if (typeof options !== 'object' || options === null) refuse('options', 'an object');
  const encode = encoder(options, ctx.report);
  return {
    run(call, next) {
      const material = shareKey(call.request);
      if (material === undefined) return next(call);
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
}
