// `npm run bench:peers`: pollite against the libraries people would otherwise
// use, on loopback. For each scenario, 100 clients of every library poll a job
// every second, all libraries at once, each in its own process (each has its
// own URLs, counters and rate-limit bucket on the server), until each client
// has seen "done" or the scenario ends. Then the min+gz bundle size of each
// library's minimal usage. Writes docs/peers.json and docs/peers-outage.svg,
// prints Markdown tables for docs/benchmarks.md.
//   PEERS_CLIENTS (100), PEERS_SCENARIOS (all), PEERS_SPEED (1: timeline scale)
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { snapshotDist } from '../dist-snapshot.mjs';

const here = dirname(fileURLToPath(import.meta.url));
// Others may rebuild dist/ while this runs: every process here uses a private copy.
const fromDist = snapshotDist();
process.env.POLLITE_DIST = fromDist('index.js');
const { renderChart } = await import(fromDist('simulator/chart.js'));
const { LABELS, LIBRARIES } = await import('./libraries.mjs');
const { bundleSizes } = await import('./sizes.mjs');
const docs = join(here, '..', '..', 'docs');
const CLIENTS = Number(process.env.PEERS_CLIENTS ?? 100);
const SPEED = Number(process.env.PEERS_SPEED ?? 1);
const s = (seconds) => seconds * 1000 * SPEED;

/** The scripted scenarios, compressed to under half a minute each. Times are ms from the start. */
const SCENARIOS = {
  outage: {
    description: 'job done at 4 s; 503 without Retry-After from 2 s to 10 s',
    scenario: { jobDoneAt: s(4), outage: { start: s(2), end: s(10) }, bodyBytes: 1024 },
    from: s(10),
    end: s(30),
  },
  'outage-retry-after': {
    description: 'job done at 4 s; 503 with Retry-After: 3 from 2 s to 10 s',
    scenario: { jobDoneAt: s(4), outage: { start: s(2), end: s(10), retryAfter: 3 }, bodyBytes: 1024 },
    from: s(10),
    end: s(30),
  },
  'rate-limit': {
    description: `job done at 8 s; each library limited to ${Math.ceil(CLIENTS * 0.3)} req/s (under a third of its demand): 429 with Retry-After: 2`,
    scenario: { jobDoneAt: s(8), rateLimit: { rps: Math.ceil(CLIENTS * 0.3), retryAfter: 2 }, bodyBytes: 1024 },
    from: s(8),
    end: s(30),
  },
  unchanged: {
    description: 'a long unchanged stretch: job done at 20 s, 4 KB bodies, ETag on every answer',
    scenario: { jobDoneAt: s(20), bodyBytes: 4096 },
    from: s(20),
    end: s(30),
  },
};

const server = fork(join(here, 'server.mjs'));
const next = (type) => new Promise((resolve) => server.on('message', function on(m) { if (m.type === type) { server.off('message', on); resolve(m); } }));
const { port } = await next('listening');

const percentile = (sorted, p) => (sorted.length ? sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] : null);

async function runScenario(name, { scenario, from, end }) {
  // Each library in its own process, all at once: none slows another's timers.
  const children = Object.keys(LIBRARIES).map((id) => {
    const child = fork(join(here, 'client.mjs'), [id, `http://127.0.0.1:${port}`, String(CLIENTS), String(end)]);
    const ready = new Promise((resolve) => child.once('message', resolve));
    const report = ready.then(
      () =>
        new Promise((resolve, reject) => {
          child.once('message', (m) => resolve([id, m]));
          child.once('exit', (code) => code !== 0 && reject(new Error(`${id} client exited with ${code}`)));
        }),
    );
    return { child, ready, report };
  });
  // Loading seven libraries takes a while on a busy machine: the clock starts when all are loaded.
  await Promise.all(children.map((c) => c.ready));
  server.send({ type: 'start', scenario });
  await next('started');
  const origin = performance.timeOrigin + performance.now();
  for (const { child } of children) child.send({ type: 'go', origin });
  const fleets = children.map((c) => c.report);
  const reports = Object.fromEntries(await Promise.all(fleets));
  // Let stragglers' last requests land before reading the counters.
  await new Promise((resolve) => setTimeout(resolve, 300));
  server.send({ type: 'stats' });
  const { stats } = await next('stats');
  return Object.fromEntries(
    Object.keys(LIBRARIES).map((id) => {
      const done = reports[id].seen.map((at) => at - origin - from).sort((a, b) => a - b);
      const st = stats[id] ?? { requests: 0, duringOutage: 0, ignoredRetryAfter: 0, bytes: 0, statuses: {}, perSecond: [] };
      return [
        id,
        {
          ...st,
          perSecond: Array.from({ length: Math.ceil(end / 1000) }, (_, i) => st.perSecond[i] ?? 0),
          done: done.length,
          p50: percentile(done, 50),
          p95: percentile(done, 95),
          clientLagP99: reports[id].lagP99,
        },
      ];
    }),
  );
}

const only = process.env.PEERS_SCENARIOS?.split(',');
const results = {};
for (const [name, def] of Object.entries(SCENARIOS)) {
  if (only && !only.includes(name)) continue;
  process.stderr.write(`${name}: ${def.description} ...\n`);
  results[name] = await runScenario(name, def);
}
server.send({ type: 'close' });

const sizes = await bundleSizes();

const fmt = (n) => (n === null || n === undefined ? '-' : Math.round(n).toLocaleString('en-US'));
const sec = (ms) => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);
const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KB`;
const lines = [];
for (const [name, byLibrary] of Object.entries(results)) {
  const def = SCENARIOS[name];
  const since = name.startsWith('outage') ? 'recovery' : 'job done';
  lines.push(`#### ${name}: ${def.description}`, '');
  lines.push(`| library | requests | during outage | 429/503 | ignored Retry-After | bytes | saw done | ${since} → done p50 | p95 | client loop lag p99 |`);
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [id, r] of Object.entries(byLibrary)) {
    lines.push(
      `| ${LABELS[id]} | ${fmt(r.requests)} | ${fmt(r.duringOutage)} | ${fmt((r.statuses[429] ?? 0) + (r.statuses[503] ?? 0))} | ${fmt(r.ignoredRetryAfter)} | ${kb(r.bytes)} | ${r.done}/${CLIENTS} | ${sec(r.p50)} | ${sec(r.p95)} | ${fmt(r.clientLagP99)} ms |`,
    );
  }
  lines.push('');
}
lines.push('#### Bundle size of the minimal usage (esbuild, minified + gzip -9)', '', '| code | min+gz |', '| --- | ---: |');
for (const { label, bytes } of sizes) lines.push(`| \`${label}\` | ${bytes === null ? 'n/a (Node only)' : `${(bytes / 1024).toFixed(1)} KB`} |`);
console.log(lines.join('\n'));

mkdirSync(docs, { recursive: true });
// A partial run (PEERS_SCENARIOS) writes beside the full one instead of over it.
const suffix = only ? `-${only.join('-')}` : '';
writeFileSync(join(docs, `peers${suffix}.json`), `${JSON.stringify({ clients: CLIENTS, node: process.version, results, sizes }, null, 2)}\n`);
if (results.outage && !only) {
  const panels = ['outage', 'rate-limit']
    .filter((name) => results[name])
    .map((name) => ({
      title: `${name}: requests per second at the server (${CLIENTS} clients each)`,
      xLabel: 'time (s)',
      yLabel: 'requests per second',
      series: Object.entries(results[name]).map(([id, r]) => ({ name: id, points: r.perSecond.map((n, i) => [i, n]) })),
      spans: SCENARIOS[name].scenario.outage
        ? [{ from: SCENARIOS[name].scenario.outage.start / 1000, to: SCENARIOS[name].scenario.outage.end / 1000, label: 'outage' }]
        : [],
    }));
  writeFileSync(join(docs, 'peers.svg'), renderChart(panels, { width: 640, height: 380, notes: [`Loopback, Node ${process.version}; all libraries ran at once, each in its own process, against its own URLs and rate-limit bucket.`] }));
  process.stderr.write('wrote docs/peers.svg\n');
}
