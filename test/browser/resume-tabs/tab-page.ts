// The page of ../resume-tabs.test.ts: on every load it makes the same call,
// `poll` of one job with a checkpoint in localStorage and `shareTabs()`, as
// an app would that watches a job in whichever of its tabs are open. It logs
// on `window.log` what the test reads: its role, the bodies it got, each
// checkpoint write it made (and its role then), and how the call ended.
import { shareTabs } from '../../../src/cooperate/index.js';
import { poll } from '../../../src/index.js';
import { checkpoint, webStorage, type Checkpoint, type CheckpointStore } from '../../../src/resume/index.js';

/** One write of this tab to the checkpoint, as the store was asked it. */
export interface Write {
  at: number;
  op: 'set' | 'delete';
  /** This tab's role when it wrote: undefined before the tabs elected one. */
  role: string | undefined;
  notBefore?: number | undefined;
  failures?: number;
  /** `n` of the kept body. */
  n?: number | undefined;
}

export interface TabLog {
  tab: string;
  /** When this page started its call, epoch ms. */
  started: number;
  role: string | undefined;
  roles: string[];
  /** Its roles, waits (`wait <ms>`) and requests, in order. */
  events: string[];
  requests: number;
  updates: number[];
  writes: Write[];
  result?: string;
}

const params = new URLSearchParams(location.search);
const log: TabLog = { tab: params.get('tab') ?? '?', started: Date.now(), role: undefined, roles: [], events: [], requests: 0, updates: [], writes: [] };
(window as unknown as { log: TabLog }).log = log;

const local = webStorage(localStorage);
/** localStorage, each write logged. */
const store: CheckpointStore = {
  get: (key) => local.get(key),
  set(key, text) {
    const saved = JSON.parse(text) as Checkpoint;
    log.writes.push({ at: Date.now(), op: 'set', role: log.role, notBefore: saved.notBefore, failures: saved.failures, n: (saved.data as { n?: number } | undefined)?.n });
    return local.set(key, text);
  },
  delete(key) {
    log.writes.push({ at: Date.now(), op: 'delete', role: log.role });
    return local.delete(key);
  },
};

const saved = checkpoint({ store, key: `job:${params.get('job') ?? 'none'}`, owner: 'user-1', data: true });
const sharing = shareTabs();
poll<{ n: number; status: string }>(`/api/${params.get('job') ?? 'none'}`, {
  interval: Number(params.get('interval') ?? 500),
  timeout: 120_000,
  use: params.get('order') === 'share-first' ? [sharing, saved] : [saved, sharing],
  isDone: (job) => job.status === 'done',
  onUpdate: (job) => void log.updates.push(job.n),
  onEvent: (event) => {
    if (event.type === 'request') log.requests += 1;
    else if (event.type === 'share') log.roles.push((log.role = event.role));
    if (event.type === 'request' || event.type === 'share') log.events.push(event.type === 'share' ? event.role : 'request');
    else if (event.type === 'wait') log.events.push(`wait ${event.delay}`);
  },
}).then(
  (job) => (log.result = job.status),
  (error: unknown) => (log.result = `error: ${(error as Error).name}: ${(error as Error).message}`),
);
