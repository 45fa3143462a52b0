// One worker of the fleet checkpoint tests (../checkpoint-processes.test.ts), bundled and forked by
// ./checkpoint-workers.ts. `run`: makes the operation call of one key under a checkpoint in Redis
// (started afresh, or resumed when the key has one). `claim`: a surviving worker's loop, which claims
// the orphans of workers that died and resumes each with the same call. Reports over IPC.
import { clusterCheckpoints, createCluster } from '../../../src/cluster/index.js';
import { pollOperation } from '../../../src/operation/index.js';
import { checkpoint } from '../../../src/resume/index.js';
import { connectClient, type ClientKind } from './clients.js';

/** What a checkpoint worker does. */
export interface CheckpointJob {
  redisUrl: string;
  client: ClientKind;
  prefix: string;
  lease: number;
  /** The operation's start URL. */
  start: string;
  mode: 'run' | 'claim';
  /** `run`'s key: `report:<month>`. */
  key?: string;
}

const job = JSON.parse(process.argv[2]!) as CheckpointJob;
const send = (report: object): void => void process.send?.({ ...report, at: Date.now() });
const { client } = await connectClient(job.client, job.redisUrl);
const cluster = createCluster({ redis: client, prefix: job.prefix });
const store = clusterCheckpoints(cluster, { name: 'reports', lease: job.lease });

/** The app's own mapping of a key back to its job: the month is in the key. */
async function report(key: string): Promise<void> {
  const month = key.slice('report:'.length);
  try {
    const value = await pollOperation(job.start, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ month }),
      operation: {
        idempotencyKey: true,
        interval: 100,
        timeout: 120_000,
        resume: checkpoint({ store, key }),
        onEvent: (event) => send({ type: 'event', key, event }),
      },
    });
    send({ type: 'settled', key, outcome: 'resolved', value });
  } catch (error) {
    send({ type: 'settled', key, outcome: 'rejected', value: String(error) });
  }
}

send({ type: 'ready' });
if (job.mode === 'run') {
  await report(job.key!);
  process.exit(0);
}
for (;;) {
  for (const key of await store.orphans().catch(() => [])) {
    if (await store.claim(key).catch(() => false)) {
      send({ type: 'claimed', key });
      void report(key);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
