// `npm run bench:peers`: pollite against the libraries people would otherwise
// use, on loopback, in the scenarios of issue 15 (see SCENARIOS), then the
// issue's 60 s outage row from the simulator and the min+gz size of each
// library's minimal usage. For each scenario, 100 clients of every library
// poll one job every second, all libraries at once, each library in its own
// process with its own counters and rate-limit bucket on the server. Every
// client talks to its own origin (a port of its own), as 100 browsers would:
// nothing one client's realm learns (pollite's cooldown) reaches another.
// Prints the issue's table (with the target for pollite and whether it was
// met), then a table per scenario and the requests per second; writes
// docs/peers.json and docs/peers.svg.
//   PEERS_CLIENTS (100), PEERS_SCENARIOS (all), PEERS_LIBRARIES (all),
//   PEERS_ONE_ORIGIN=1 (every client on one origin, as pollers in one Node server),
//   PEERS_DIST=<a built dist/> (measure that build, as it is, instead of a snapshot of ./dist: a change
//   built elsewhere, or the build before it, for an A/B run)
import { execFile, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { snapshotDist } from '../dist-snapshot.mjs';

const wallStart = performance.now();
const here = dirname(fileURLToPath(import.meta.url));
// Others may rebuild dist/ while this runs: every process here uses a private copy (or the build named).
const fromDist = process.env.PEERS_DIST ? (path) => pathToFileURL(resolve(process.env.PEERS_DIST, path)).href : snapshotDist();
process.env.POLLITE_DIST = fromDist('index.js');
const { renderChart } = await import(fromDist('simulator/chart.js'));
const { LABELS, LIBRARIES } = await import('./libraries.mjs');
const { bundleSizes } = await import('./sizes.mjs');
const docs = join(here, '..', '..', 'docs');
const CLIENTS = Number(process.env.PEERS_CLIENTS ?? 100);
const ONE_ORIGIN = process.env.PEERS_ONE_ORIGIN === '1';
const onlyScenarios = process.env.PEERS_SCENARIOS?.split(',');
const onlyLibraries = process.env.PEERS_LIBRARIES?.split(',');
const libraries = Object.keys(LIBRARIES).filter((id) => !onlyLibraries || onlyLibraries.includes(id));
const INTERVAL = 1000;
const s = (seconds) => seconds * 1000;

/**
 * Issue 15's scenarios. Times are ms from the start; the clients start spread
 * over the first second and poll steadily before anything happens.
 */
const SCENARIOS = {
  'rate-limit': {
    title: `rate limit ${CLIENTS / 2} req/s (429 + \`Retry-After: 1\`) for 10 s, ${CLIENTS} clients polling one job at 1 s`,
    description: `each library limited to ${CLIENTS / 2} req/s (half its demand; fixed 1 s windows) from 2 s to 12 s, 429 with Retry-After: 1; the job is done at 7 s, 5 s into the limit; ends at 20 s`,
    scenario: { rateLimit: { start: s(2), end: s(12), rps: CLIENTS / 2, retryAfter: 1 }, jobDoneAt: s(7), bodyBytes: 1024 },
    end: s(20),
  },
  outage: {
    title: '5 s outage, 503 without Retry-After',
    description: 'every fleet polling steadily by 2 s; 503 without Retry-After from 4 s to 9 s; the job is done when the outage ends; ends at 20 s',
    scenario: { outage: { start: s(4), end: s(9) }, jobDoneAt: s(9), bodyBytes: 1024 },
    end: s(20),
  },
  'outage-retry-after': {
    title: '5 s outage, 503 + `Retry-After: 2`',
    description: 'every fleet polling steadily by 2 s; 503 with Retry-After: 2 from 4 s to 9 s; the job is done when the outage ends; ends at 20 s',
    scenario: { outage: { start: s(4), end: s(9), retryAfter: 2 }, jobDoneAt: s(9), bodyBytes: 1024 },
    end: s(20),
  },
  // Issue 34: the pace after a throttle, once the server is healthy again (above, the first 2xx after it is the done one).
  'outage-retry-after-late-job': {
    title: '5 s outage, 503 + `Retry-After: 2`, the job done 3 s after it',
    description: 'as outage-retry-after, but the job is done 3 s after the outage ends: the pace after the outage decides when it is seen; ends at 22 s',
    scenario: { outage: { start: s(4), end: s(9), retryAfter: 2 }, jobDoneAt: s(12), bodyBytes: 1024 },
    end: s(22),
  },
  'rate-limit-late-job': {
    title: `rate limit ${CLIENTS / 2} req/s (429 + \`Retry-After: 1\`) for 10 s, the job done 2 s after it`,
    description: `as rate-limit, but the job is done at 14 s, 2 s after the limit ends: the pace after the 429s decides when it is seen; ends at 24 s`,
    scenario: { rateLimit: { start: s(2), end: s(12), rps: CLIENTS / 2, retryAfter: 1 }, jobDoneAt: s(14), bodyBytes: 1024 },
    end: s(24),
  },
  // Issue 36: GitHub's X-Poll-Interval, raised under load ("Please obey the header").
  'poll-interval': {
    title: 'server under load paces by `X-Poll-Interval: 3` for 10 s (1 otherwise)',
    description: 'X-Poll-Interval: 1 on every 2xx and 304, 3 from 2 s to 12 s (the server under load); the job is done at 14 s; ends at 20 s',
    scenario: { pollInterval: { start: s(2), end: s(12), seconds: 3 }, jobDoneAt: s(14), bodyBytes: 1024 },
    end: s(20),
  },
  unchanged: {
    title: 'unchanged 10 KB job (ETag on every answer)',
    description: 'a job unchanged for 15 s (10 KB bodies, ETag on every answer), then done; ends at 20 s',
    scenario: { jobDoneAt: s(15), bodyBytes: 10 * 1024 },
    end: s(20),
  },
};

/** The issue's 60 s outage row, from the simulator: its default outage scenario (503 without Retry-After from 60 s to 120 s). */
const SIMULATOR_ARGS = ['simulate', '--scenario', 'outage', '--clients', '1000', '--interval', '2s', '--strategies', 'naive,pollite', '--json'];
const SIMULATOR_TARGET = 6773;

const server = fork(join(here, 'server.mjs'));
const next = (type) => new Promise((resolve) => server.on('message', function on(m) { if (m.type === type) { server.off('message', on); resolve(m); } }));
await next('ready');
server.send({ type: 'listen', origins: ONE_ORIGIN ? 1 : CLIENTS });
const { ports } = await next('listening');
const urlsOf = (id) => Array.from({ length: CLIENTS }, (_, n) => `http://127.0.0.1:${ports[ONE_ORIGIN ? 0 : n]}/${id}/job?client=${n}`);

/** The nearest-rank percentile of `values` (Infinity for a client that never got there); null when empty. */
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] : null;
};

async function runScenario({ scenario, end }) {
  // Each library in its own process, all at once: none slows another's timers.
  const children = libraries.map((id) => {
    const child = fork(join(here, 'client.mjs'), [id]);
    const ready = new Promise((resolve) => child.once('message', resolve));
    const report = ready.then(
      () =>
        new Promise((resolve, reject) => {
          child.once('message', (m) => resolve([id, m]));
          child.once('exit', (code) => code !== 0 && reject(new Error(`${id} client exited with ${code}`)));
        }),
    );
    return { id, child, ready, report };
  });
  // Loading seven libraries takes a while on a busy machine: the clock starts when all are loaded.
  await Promise.all(children.map((c) => c.ready));
  server.send({ type: 'start', scenario });
  await next('started');
  const origin = performance.timeOrigin + performance.now();
  for (const { id, child } of children) child.send({ type: 'go', origin, urls: urlsOf(id), end, stagger: INTERVAL / CLIENTS });
  const reports = Object.fromEntries(await Promise.all(children.map((c) => c.report)));
  // Let stragglers' last requests land before reading the counters.
  await new Promise((resolve) => setTimeout(resolve, 300));
  server.send({ type: 'stats' });
  const { stats } = await next('stats');
  const { outage, jobDoneAt } = scenario;
  return Object.fromEntries(
    libraries.map((id) => {
      const st = stats[id] ?? { requests: 0, duringOutage: 0, ignoredRetryAfter: 0, conditional: 0, bytes: 0, statuses: {}, perSecond: [], clients: {} };
      const { outcomes, lagP99 } = reports[id];
      const perClient = outcomes.map((outcome, n) => ({ outcome, ...(st.clients[n] ?? {}) }));
      // A client that never saw done (or never recovered) counts as never: it is in the tail, not left out.
      const seen = perClient.map((c) => (c.outcome === 'done' && c.toldDone != null ? c.toldDone - jobDoneAt : Infinity));
      const recovery = outage ? perClient.map((c) => (c.recovered == null ? Infinity : c.recovered - outage.end)) : [];
      // What a client that honours the Retry-After exactly (and polls at 1 s otherwise) sends into the outage, from its first request there.
      const exact = outage?.retryAfter
        ? perClient.reduce((n, c) => n + (c.firstInOutage == null ? 0 : Math.ceil((outage.end - c.firstInOutage) / (outage.retryAfter * 1000))), 0)
        : null;
      const { clients: _, ...counters } = st;
      return [
        id,
        {
          ...counters,
          perSecond: Array.from({ length: Math.ceil(end / 1000) }, (_, i) => st.perSecond[i] ?? 0),
          lost: outcomes.filter((o) => o !== 'done').length,
          threw: outcomes.filter((o) => o === 'threw').length,
          seenP50: percentile(seen, 50),
          seenP95: percentile(seen, 95),
          recoveryP50: outage ? percentile(recovery, 50) : null,
          recoveryP95: outage ? percentile(recovery, 95) : null,
          retryAfterExact: exact,
          clientLagP99: lagP99,
        },
      ];
    }),
  );
}

const results = {};
for (const [name, def] of Object.entries(SCENARIOS)) {
  if (onlyScenarios && !onlyScenarios.includes(name)) continue;
  const started = performance.now();
  process.stderr.write(`${name}: ${def.description} ...`);
  results[name] = await runScenario(def);
  process.stderr.write(` ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
server.send({ type: 'close' });

let simulator = null;
if (!onlyScenarios || onlyScenarios.includes('simulator')) {
  process.stderr.write(`simulator: pollite ${SIMULATOR_ARGS.join(' ')} ...`);
  const started = performance.now();
  const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(fromDist('cli.js')), ...SIMULATOR_ARGS], { maxBuffer: 64 << 20 });
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(` ${seconds.toFixed(1)} s\n`);
  const json = JSON.parse(stdout);
  simulator = {
    command: `node dist/cli.js ${SIMULATOR_ARGS.filter((a) => a !== '--json').join(' ')}`,
    description: json.description,
    seconds,
    strategies: Object.fromEntries(json.strategies.map(({ rps: _, ...m }) => [m.strategy, m])),
  };
}

const sizes = onlyScenarios || onlyLibraries ? [] : await bundleSizes();

// --- The tables -------------------------------------------------------------
const fmt = (n) => (n === null || n === undefined ? '-' : Math.round(n).toLocaleString('en-US'));
const sec = (ms, digits = 1) => (ms === null || ms === undefined ? '-' : ms === Infinity ? 'never' : `${(ms / 1000).toFixed(digits)} s`);
const kb = (bytes) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KB`;
const SHORT = { pollite: 'pollite', naive: 'naive', ky: 'ky', got: 'got', 'p-retry': 'p-retry', 'axios-retry': 'axios-retry', tanstack: 'query-core', swr: 'swr', seed: 'seed' };
const peers = libraries.filter((id) => id !== 'pollite');
const lines = [];

/** The rows of the issue's table: `value(result)` per library, the target, and whether pollite met it. */
const rows = [];
const mark = (ok) => (ok === null ? '-' : ok ? 'yes' : '**no**');
const lostCell = (r) => `${r.lost}${r.threw ? ` (${r.threw} threw)` : ''}`;
function group(name, measures) {
  const byLibrary = results[name];
  if (!byLibrary) return;
  measures.forEach(([measured, value, target, met], i) => {
    rows.push({ scenario: i === 0 ? SCENARIOS[name].title : '', measured, cells: libraries.map((id) => value(byLibrary[id])), target, met: byLibrary.pollite ? met(byLibrary.pollite, byLibrary) : null });
  });
}

group('rate-limit', [
  ['429s drawn', (r) => fmt(r.statuses[429] ?? 0), 'at most 100', (p) => (p.statuses[429] ?? 0) <= 100],
  ['requests', (r) => fmt(r.requests), '-', () => null],
  ['clients lost (never saw done, or threw)', lostCell, '0: every client sees done', (p) => p.lost === 0],
  ['job seen done p95 (from when it became done)', (r) => sec(r.seenP95), '≤ 4.0 s', (p) => p.seenP95 <= 4000],
]);
const unlostPeers = (byLibrary) => peers.filter((id) => byLibrary[id].lost === 0);
const fewestOf = (byLibrary) => Math.min(...unlostPeers(byLibrary).map((id) => byLibrary[id].duringOutage));
group('outage', [
  [
    'requests into the outage',
    (r) => fmt(r.duringOutage),
    results.outage ? `fewer than every peer that lost no client (fewest: ${fmt(fewestOf(results.outage))})` : '',
    (p, byLibrary) => (unlostPeers(byLibrary).length ? p.duringOutage < fewestOf(byLibrary) : null),
  ],
  ['clients lost', lostCell, '-', () => null],
  ['recovery seen p95 (outage end → first 2xx)', (r) => sec(r.recoveryP95), '≤ 3.0 s', (p) => p.recoveryP95 <= 3000],
]);
// Issue 34: the peer to beat is the one that honours every Retry-After, loses no client and sends the fewest requests into the outage.
const politePeer = (byLibrary) =>
  peers.filter((id) => byLibrary[id].lost === 0 && byLibrary[id].ignoredRetryAfter === 0).sort((a, b) => byLibrary[a].duringOutage - byLibrary[b].duringOutage)[0];
/** Issue 34's rows for an outage with Retry-After: no more requests into it than that peer, and the job seen done within 10 % of it. */
const againstPolitePeer = (name) => {
  const peer = results[name] && politePeer(results[name]);
  const of = (byLibrary) => byLibrary[politePeer(byLibrary)];
  return [
    [
      'requests into the outage, against the fewest peer that honours Retry-After and loses no client',
      (r) => fmt(r.duringOutage),
      peer ? `no more than ${SHORT[peer]}'s ${fmt(results[name][peer].duringOutage)}` : 'no such peer ran',
      (p, byLibrary) => (politePeer(byLibrary) ? p.duringOutage <= of(byLibrary).duringOutage : null),
    ],
    [
      'job seen done p95 (from when it became done)',
      (r) => sec(r.seenP95, 2),
      peer ? `within 10% of ${SHORT[peer]}'s ${sec(results[name][peer].seenP95, 2)}` : 'no such peer ran',
      (p, byLibrary) => (politePeer(byLibrary) ? p.seenP95 <= of(byLibrary).seenP95 * 1.1 : null),
    ],
  ];
};
group('outage-retry-after', [
  ['requests into the outage (floor: honouring Retry-After exactly)', (r) => `${fmt(r.duringOutage)} (${fmt(r.retryAfterExact)})`, '≈ 259 (keep: at most 10% more)', (p) => p.duringOutage <= 259 * 1.1],
  ...againstPolitePeer('outage-retry-after'),
  ['Retry-After violations (requests sooner than told)', (r) => fmt(r.ignoredRetryAfter), '0', (p) => p.ignoredRetryAfter === 0],
  ['recovery seen p95 (outage end → first 2xx)', (r) => sec(r.recoveryP95), '≈ 2.9 s (keep: at most 10% more)', (p) => p.recoveryP95 <= 2900 * 1.1],
  ['clients lost', lostCell, '-', () => null],
]);
group('outage-retry-after-late-job', [
  ...againstPolitePeer('outage-retry-after-late-job'),
  ['Retry-After violations (requests sooner than told)', (r) => fmt(r.ignoredRetryAfter), '0', (p) => p.ignoredRetryAfter === 0],
  ['clients lost', lostCell, '0', (p) => p.lost === 0],
]);
group('rate-limit-late-job', [
  ['429s drawn', (r) => fmt(r.statuses[429] ?? 0), '-', () => null],
  ['job seen done p95 (from when it became done)', (r) => sec(r.seenP95, 2), '-', () => null],
  ['clients lost', lostCell, '0', (p) => p.lost === 0],
]);
// Issue 36: an obedient fleet sends about 100 × 10 s / 3 s ≈ 333 requests under load (plus those already due as it began).
group('poll-interval', [
  ['requests while under load (X-Poll-Interval: 3)', (r) => fmt(r.duringLoad), '≈ 333 + 100 (one round due as it began); the fewest', (p, byLibrary) => unlostPeers(byLibrary).every((id) => p.duringLoad <= byLibrary[id].duringLoad)],
  ['requests sooner than the X-Poll-Interval told', (r) => fmt(r.ignoredPollInterval), '0', (p) => p.ignoredPollInterval === 0],
  ['requests in all', (r) => fmt(r.requests), '-', () => null],
  ['job seen done p95 (from when it became done)', (r) => sec(r.seenP95, 2), '-', () => null],
  ['clients lost', lostCell, '0', (p) => p.lost === 0],
]);
group('unchanged', [
  ['bytes sent by the server', (r) => kb(r.bytes), 'keep: the fewest', (p, byLibrary) => peers.every((id) => p.bytes < byLibrary[id].bytes)],
  ['304s', (r) => fmt(r.statuses[304] ?? 0), 'keep: gets 304s', (p) => (p.statuses[304] ?? 0) > 0],
  ['requests with If-None-Match', (r) => fmt(r.conditional), 'keep: sends If-None-Match', (p) => p.conditional > 0],
]);
if (simulator) {
  const { pollite: sp, naive: sn } = simulator.strategies;
  rows.push({
    scenario: `60 s outage, 503 without Retry-After, simulator, 1,000 clients at 2 s`,
    measured: 'requests into the outage',
    cells: libraries.map((id) => (id === 'pollite' ? fmt(sp.requestsDuringOutage) : id === 'naive' ? fmt(sn.requestsDuringOutage) : 'n/a')),
    target: `no more than ${fmt(SIMULATOR_TARGET)}`,
    met: sp.requestsDuringOutage <= SIMULATOR_TARGET,
  });
}

lines.push(`#### Issue 15's table: ${CLIENTS} clients per library, ${ONE_ORIGIN ? 'every client on one origin' : 'each on its own origin'}`, '');
lines.push(`| scenario | measured | ${libraries.map((id) => SHORT[id]).join(' | ')} | target for pollite | met |`);
lines.push(`| --- | --- | ${libraries.map(() => '---:').join(' | ')} | --- | --- |`);
for (const r of rows) lines.push(`| ${r.scenario} | ${r.measured} | ${r.cells.join(' | ')} | ${r.target} | ${mark(r.met)} |`);
lines.push('');
if (simulator) {
  const { pollite: sp, naive: sn } = simulator.strategies;
  lines.push(
    `Simulator row: \`${simulator.command}\` (${simulator.description}; ${simulator.seconds.toFixed(1)} s): pollite ${fmt(sp.requestsDuringOutage)} requests into the outage (${fmt(sp.requests)} in all, ${fmt(sp.gaveUp)} gave up and restarted, 99% healthy ${sec(sp.timeTo99Healthy)} after), naive ${fmt(sn.requestsDuringOutage)} (${fmt(sn.requests)} in all, 99% healthy ${sec(sn.timeTo99Healthy)} after).`,
    '',
  );
}

// One table per scenario, every counter.
for (const [name, byLibrary] of Object.entries(results)) {
  const { description, scenario } = SCENARIOS[name];
  const since = scenario.outage ? 'recovery (outage end → first 2xx)' : 'job done → seen';
  lines.push(`##### ${name}: ${description}`, '');
  lines.push(`| library | requests | into outage | 429 | 503 | 304 | If-None-Match | sooner than Retry-After | bytes sent | lost (threw) | ${since} p50 | p95 | client loop lag p99 |`);
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [id, r] of Object.entries(byLibrary)) {
    const p50 = scenario.outage ? r.recoveryP50 : r.seenP50;
    const p95 = scenario.outage ? r.recoveryP95 : r.seenP95;
    lines.push(
      `| ${LABELS[id]} | ${fmt(r.requests)} | ${fmt(r.duringOutage)} | ${fmt(r.statuses[429] ?? 0)} | ${fmt(r.statuses[503] ?? 0)} | ${fmt(r.statuses[304] ?? 0)} | ${fmt(r.conditional)} | ${fmt(r.ignoredRetryAfter)} | ${kb(r.bytes)} | ${r.lost} (${r.threw}) | ${sec(p50)} | ${sec(p95)} | ${fmt(r.clientLagP99)} ms |`,
    );
  }
  lines.push('');
  if (name === 'unchanged') continue;
  // Requests per second at the server: what the counts above are made of.
  const seconds = byLibrary[libraries[0]].perSecond.length;
  lines.push(`Requests per second (second n = [n, n+1) s):`, '');
  lines.push(`| library | ${Array.from({ length: seconds }, (_, i) => i).join(' | ')} |`);
  lines.push(`| --- | ${Array.from({ length: seconds }, () => '---:').join(' | ')} |`);
  for (const [id, r] of Object.entries(byLibrary)) lines.push(`| ${SHORT[id]} | ${r.perSecond.join(' | ')} |`);
  lines.push('');
}

if (sizes.length) {
  lines.push('##### Bundle size of the minimal usage (esbuild, minified + gzip -9)', '', '| code | min+gz |', '| --- | ---: |');
  for (const { label, bytes } of sizes) lines.push(`| \`${label}\` | ${bytes === null ? 'n/a (Node only)' : `${(bytes / 1024).toFixed(1)} KB`} |`);
  lines.push('');
}
const wall = (performance.now() - wallStart) / 1000;
lines.push(`Wall time of the run: ${wall.toFixed(0)} s (Node ${process.version}).`);
console.log(lines.join('\n'));

mkdirSync(docs, { recursive: true });
// A partial run writes beside the full one instead of over it.
const partial = [onlyScenarios?.join('-'), onlyLibraries?.join('-'), ONE_ORIGIN ? 'one-origin' : undefined, CLIENTS === 100 ? undefined : `${CLIENTS}-clients`].filter(Boolean);
// (`peers-partial-…`: the older `peers-<scenario>.json` files are kept as they were.)
const suffix = partial.length ? `-partial-${partial.join('-')}` : '';
const json = { clients: CLIENTS, node: process.version, oneOrigin: ONE_ORIGIN, ...(process.env.PEERS_DIST && { dist: process.env.PEERS_DIST }), wallSeconds: Math.round(wall), scenarios: Object.fromEntries(Object.entries(SCENARIOS).map(([k, v]) => [k, { description: v.description, ...v.scenario, end: v.end }])), table: rows.map(({ scenario, measured, cells, target, met }) => ({ scenario, measured, cells: Object.fromEntries(libraries.map((id, i) => [id, cells[i]])), target, met })), results, simulator, sizes };
writeFileSync(join(docs, `peers${suffix}.json`), `${JSON.stringify(json, null, 2)}\n`);
if (!suffix) {
  const panels = ['rate-limit', 'outage', 'outage-retry-after'].map((name) => {
    const { rateLimit, outage } = SCENARIOS[name].scenario;
    return {
      title: `${name}: requests per second at the server (${CLIENTS} clients each)`,
      xLabel: 'time (s)',
      yLabel: 'requests per second',
      series: Object.entries(results[name]).map(([id, r]) => ({ name: SHORT[id], points: r.perSecond.map((n, i) => [i + 0.5, n]) })),
      spans: [
        ...(outage ? [{ from: outage.start / 1000, to: outage.end / 1000, label: 'outage' }] : []),
        ...(rateLimit ? [{ from: rateLimit.start / 1000, to: rateLimit.end / 1000, label: `${rateLimit.rps} req/s limit` }] : []),
      ],
    };
  });
  writeFileSync(
    join(docs, 'peers.svg'),
    renderChart(panels, { width: 640, height: 340, notes: [`Loopback, Node ${process.version}; all libraries ran at once, each in its own process, every client on its own origin; points at the middle of each second.`] }),
  );
  process.stderr.write('wrote docs/peers.svg\n');
}
process.stderr.write(`wall time ${wall.toFixed(0)} s\n`);
