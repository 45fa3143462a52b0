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
const stop = (): void => controller.abort(new Error('stopped'));
/** When the wait the poll is in ends (its `at`), or -Infinity: it is not in one. */
let waitEnds = -Infinity;
/** A `stop` with `inWait` that came while a request was in flight: done at the next wait. */
let stopAtWait = false;

let calls: ((n: number) => Promise<void>) | undefined;

process.on('message', async (message: { type: 'poll'; job: WorkerJob } | { type: 'stop'; inWait?: boolean } | { type: 'calls'; n: number }) => {
  if (message.type === 'stop') {
    // In a wait (with a few ms to spare): nothing is in flight, stop now; else at the next wait, so that every request
    // it announced reaches the server and is answered.
    if (message.inWait && !(Date.now() < waitEnds - 5)) return void (stopAtWait = true);
    return stop();
  }
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
    onEvent: (event) => {
      send({ type: 'event', event, at: Date.now() });
      if (event.type === 'request') waitEnds = -Infinity;
      else if (event.type === 'wait' || event.type === 'retry') {
        waitEnds = event.at;
        // Once the event is out and the wait begun (its timer starts right after it), before it can end.
        if (stopAtWait) queueMicrotask(stop);
      }
    },
    onUpdate: (data) => send({ type: 'update', data, at: Date.now() }),
  }).then(
    (value) => send({ type: 'settled', outcome: 'resolved', value, at: Date.now() }),
    (error: unknown) => send({ type: 'settled', outcome: 'rejected', value: String(error), at: Date.now() }),
  );
});
