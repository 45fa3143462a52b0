// Soak: 1,000,000 polls of a loopback server in one process, to show that
// pollite leaks nothing per request or per poll() call: heap after GC, the
// listeners on one long-lived AbortSignal and the live handles, sampled as
// it goes. Not a timed test: run it with `npm run bench:soak`.
//
//   node --expose-gc bench/soak.mjs [--requests 1000000] [--concurrency 16] [--per-poll 1000]
import { getEventListeners, setMaxListeners } from 'node:events';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { poll } from '../dist/index.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000000' },
    concurrency: { type: 'string', default: '16' },
    'per-poll': { type: 'string', default: '1000' },
  },
});
const TOTAL = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const PER_POLL = Number(values['per-poll']);
if (typeof globalThis.gc !== 'function') {
  console.error('Run with node --expose-gc (npm run bench:soak does).');
  process.exit(2);
}
if (![TOTAL, CONCURRENCY, PER_POLL].every((n) => Number.isInteger(n) && n > 0)) {
  console.error('--requests, --concurrency and --per-poll must be positive integers');
  process.exit(2);
}

// The server: each job's version moves every second request, so pollite
// sees 304s and 200s in turn; a job is done after PER_POLL requests.
const seen = new Map();
const statuses = { 200: 0, 304: 0 };
const server = createServer((req, res) => {
  const count = (seen.get(req.url) ?? 0) + 1;
  seen.set(req.url, count);
  const etag = `"v${Math.floor(count / 2)}"`;
  if (count < PER_POLL && req.headers['if-none-match'] === etag) {
    statuses[304] += 1;
    res.writeHead(304, { etag });
    return res.end();
  }
  statuses[200] += 1;
  const body = JSON.stringify({ done: count >= PER_POLL, count });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), etag });
  res.end(body);
  if (count >= PER_POLL) seen.delete(req.url);
});
server.keepAliveTimeout = 10_000;
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

// One long-lived signal shared by every poller, as an app's would be.
const app = new AbortController();
// Each live poller holds one listener on it: say how many are expected, or Node warns past 10.
setMaxListeners(CONCURRENCY + 1, app.signal);
const listeners = () => getEventListeners(app.signal, 'abort').length;
const handles = () => {
  const counts = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
};
const heapMb = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

let requests = 0;
let pollsStarted = 0;
let pollsDone = 0;
const samples = [];
let nextSample = 0;
let baseline;

function sample(label) {
  const entry = { label, requests, polls: pollsDone, heapMb: heapMb(), listeners: listeners(), handles: handles(), at: Date.now() };
  samples.push(entry);
  console.log(
    `${label.padEnd(10)} ${String(requests).padStart(8)} requests  ${String(pollsDone).padStart(5)} polls  heap ${entry.heapMb.toFixed(2)} MB  signal listeners ${entry.listeners}  handles ${JSON.stringify(entry.handles)}`,
  );
  return entry;
}

async function poller(id, budget) {
  while (pollsStarted * PER_POLL < budget) {
    pollsStarted += 1;
    const job = await poll(`${base}/jobs/${id}-${pollsStarted}`, {
      interval: 0,
      signal: app.signal,
      isDone: (data) => data.done,
      onEvent: (event) => {
        if (event.type !== 'request') return;
        requests += 1;
        if (requests >= nextSample) {
          nextSample += TOTAL / 10;
          // Sampled inside the loop, with every poller mid-flight.
          queueMicrotask(() => sample('running'));
        }
      },
    });
    if (!job.done) throw new Error('poll resolved early');
    pollsDone += 1;
  }
}

const started = Date.now();
const WARM_UP = Math.min(TOTAL / 10, 50_000);
nextSample = Infinity;
// Warm up (JIT, connection pool), then take the baseline.
await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => poller(`warm${i}`, WARM_UP)));
const warmRequests = requests;
baseline = sample('baseline');
requests = 0;
pollsStarted = 0;
pollsDone = 0;
nextSample = TOTAL / 10;
const soakStarted = Date.now();
await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => poller(`p${i}`, TOTAL)));
const seconds = (Date.now() - soakStarted) / 1000;
await new Promise((resolve) => setTimeout(resolve, 50));
const end = sample('end');
server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
await new Promise((resolve) => setTimeout(resolve, 50));
const closed = sample('closed');

const growth = end.heapMb - baseline.heapMb;
const peak = Math.max(...samples.filter((s) => s.label === 'running').map((s) => s.heapMb), end.heapMb);
const summary = {
  requests,
  polls: pollsDone,
  concurrency: CONCURRENCY,
  perPoll: PER_POLL,
  warmUpRequests: warmRequests,
  seconds: Number(seconds.toFixed(1)),
  requestsPerSecond: Math.round(requests / seconds),
  statuses,
  heapBaselineMb: Number(baseline.heapMb.toFixed(2)),
  heapEndMb: Number(end.heapMb.toFixed(2)),
  heapPeakMb: Number(peak.toFixed(2)),
  heapGrowthMb: Number(growth.toFixed(2)),
  signalListeners: { whileRunning: [...new Set(samples.filter((s) => s.label === 'running').map((s) => s.listeners))], end: end.listeners },
  handlesAfterClose: closed.handles,
  node: process.version,
  totalSeconds: Number(((Date.now() - started) / 1000).toFixed(1)),
};
console.log(`\nSOAK ${JSON.stringify(summary)}`);
const ok = growth < 5 && end.listeners === 0 && requests >= TOTAL;
console.log(ok ? `soak: ok, heap grew ${growth.toFixed(2)} MB (< 5 MB), 0 listeners left` : 'soak: FAILED (heap grew >= 5 MB, listeners left, or requests missing)');
process.exit(ok ? 0 : 1);
