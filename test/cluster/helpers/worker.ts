// One pollite process of the cluster tests (and of nothing else): bundled
// and forked by ./processes.ts, told what to poll over IPC, reporting every event,
// update and cluster status back. See ./processes.ts.
import { createCluster, type ClusterStatus } from '../../../src/cluster/index.js';
import { fetchWithRetry, poll, type PollEvent } from '../../../src/index.js';
import { type PollFeature } from '../../../src/kit/index.js';
import { connectClient, type ClientKind, type ClientSettings } from './clients.js';
import { lagProbe } from './lag.js';

/** What a worker polls, and how. */
export interface WorkerJob {
  /** The Redis server's URL, or a Redis Cluster's nodes'. */
  redisUrl: string | string[];
  client: ClientKind;
  clientSettings?: ClientSettings;
  prefix: string;
  url: string;
  interval: number;
  lease?: number;
  deadline?: number;
  recheck?: number;
  headers?: Record<string, string>;
  /** Which cluster features to use. */
  use: Array<'share' | 'cooldown'>;
  /** Polling is done once a body's `n` reaches this. */
  doneAt?: number;
  maxRetryAfter?: number;
  /**
   * A budget worker: it polls nothing, and on each `calls` message makes
   * that many calls of `url`, one after the other, through fetchWithRetry
   * with one retry from this shared budget; then reports `calls`.
   */
  budget?: { name: string; capacity: number };
}

/** What a worker reports; `lag`: how late its timers have fired at most, so far (see ./lag.ts). */
export type WorkerReport = (
  | { type: 'ready' }
  | { type: 'event'; event: PollEvent; at: number }
  | { type: 'update'; data: unknown; at: number }
  | { type: 'status'; status: ClusterStatus; at: number }
  | { type: 'settled'; outcome: 'resolved' | 'rejected'; value: unknown; at: number }
  | { type: 'calls'; made: number; at: number }
) & { lag?: number };

const lag = lagProbe();
const send = (report: WorkerReport): void => void process.send?.({ ...report, lag: lag.max() });
const controller = new AbortController();

let calls: ((n: number) => Promise<void>) | undefined;

process.on('message', async (message: { type: 'poll'; job: WorkerJob } | { type: 'stop' } | { type: 'calls'; n: number }) => {
  if (message.type === 'stop') return controller.abort(new Error('stopped'));
  if (message.type === 'calls') return calls?.(message.n);
  const { job } = message;
  const { client } = await connectClient(job.client, job.redisUrl, job.clientSettings);
  const cluster = createCluster({
    redis: client,
    prefix: job.prefix,
    ...(job.lease === undefined ? {} : { lease: job.lease }),
    ...(job.deadline === undefined ? {} : { deadline: job.deadline }),
    ...(job.recheck === undefined ? {} : { recheck: job.recheck }),
    onStatus: (status) => send({ type: 'status', status: { ...status, ...('error' in status ? { error: String(status.error) } : {}) }, at: Date.now() }),
  });
  if (job.budget) {
    const budget = cluster.budget(job.budget);
    calls = async (n) => {
      for (let i = 0; i < n; i++) await fetchWithRetry(job.url, { retry: { budget, retries: 1, backoff: () => 0 } }).catch(() => undefined);
      send({ type: 'calls', made: n, at: Date.now() });
    };
    return send({ type: 'ready' });
  }
  const use: PollFeature[] = job.use.map((name) => (name === 'share' ? cluster.share() : cluster.cooldown()));
  send({ type: 'ready' });
  poll<{ n: number }>(job.url, {
    interval: job.interval,
    use,
    init: { headers: job.headers ?? {} },
    signal: controller.signal,
    ...(job.maxRetryAfter === undefined ? {} : { maxRetryAfter: job.maxRetryAfter }),
    isDone: (body) => job.doneAt !== undefined && body.n >= job.doneAt,
    onEvent: (event) => send({ type: 'event', event, at: Date.now() }),
    onUpdate: (data) => send({ type: 'update', data, at: Date.now() }),
  }).then(
    (value) => send({ type: 'settled', outcome: 'resolved', value, at: Date.now() }),
    (error: unknown) => send({ type: 'settled', outcome: 'rejected', value: String(error), at: Date.now() }),
  );
});
