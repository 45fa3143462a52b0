// `npm run bench:cooperate`: what cooperating pollers save the server.
//   1. 40 pollers of one origin through a 60 s 503 outage with Retry-After,
//      with the origin cooldown (default) and without (`cooldown: false`).
//      Target: cooldown sends <= 1/4 of the outage requests.
//   2. 20 pollers of one URL, with and without `use: [share()]`. Target: 1/N.
//   3. 100 pollers at 1 s against a server that serves 50 requests/s (token
//      bucket, 429 + Retry-After: 1 beyond it) for 30 s, with a fixed and with
//      an adaptive interval. Target: adaptive draws <= 1/10 of the 429s, and
//      no client gives up. These pollers stand for 100 browsers, so they run
//      with `cooldown: false` (a cooldown is per page).
// Each scenario runs in VIRTUAL time: every poller gets an injected `env`
// whose clock only moves when all requests have been answered by a real
// node:http server on 127.0.0.1 (which reads the same virtual clock), so a
// 100 s scenario takes a few real seconds and the numbers are exactly
// reproducible (seeded randomness). Knobs: BENCH_SEED (scenario 3's seed),
// BENCH_FACTOR (try another paceByData factor).
import { createServer } from 'node:http';
import { paceByData, share as shareLoop } from '../dist/cooperate/index.js';
import { poll } from '../dist/index.js';

const immediate = () => new Promise((resolve) => setImmediate(resolve));

/** A seeded PRNG (mulberry32), so every run prints the same figures. */
function seeded(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Virtual time: timers run in order; time moves only when no request is in flight. */
function virtualTime(seed) {
  const start = Date.UTC(2026, 0, 1);
  let now = start;
  let id = 0;
  let inFlight = 0;
  const timers = new Map();
  const env = {
    now: () => now,
    random: seeded(seed),
    setTimeout: (callback, ms) => {
      timers.set(++id, { at: now + ms, callback });
      return id;
    },
    clearTimeout: (handle) => timers.delete(handle),
  };
  // Reads the body before answering, so nothing the poller does next waits on I/O.
  const fetchImpl = async (input, init) => {
    inFlight += 1;
    try {
      const response = await fetch(input, init);
      const body = [204, 304].includes(response.status) ? null : await response.arrayBuffer();
      return new Response(body, { status: response.status, headers: response.headers });
    } finally {
      inFlight -= 1;
    }
  };
  const settle = async () => {
    for (let quiet = 0; quiet < 3; ) {
      await immediate();
      quiet = inFlight === 0 ? quiet + 1 : 0;
    }
  };
  /** Runs until no timer is left or `until` ms have passed. */
  const run = async (until) => {
    await settle();
    for (;;) {
      let next;
      for (const entry of timers) if (!next || entry[1].at < next[1].at) next = entry;
      if (!next || next[1].at - start > until) break;
      const at = next[1].at;
      for (const [key, timer] of [...timers]) {
        if (timer.at !== at) continue;
        timers.delete(key);
        now = at;
        timer.callback();
      }
      await settle();
    }
  };
  return { env, fetch: fetchImpl, elapsed: () => now - start, run, at: (ms, callback) => env.setTimeout(callback, ms) };
}

async function serve(handler) {
  const server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))) };
}

const json = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** Starts `count` pollers at random moments in the first `spreadMs`, returning their outcomes when all settle. */
async function fleet(vt, count, spreadMs, start) {
  const outcomes = [];
  for (let i = 0; i < count; i += 1) {
    vt.at(Math.floor(vt.env.random() * spreadMs), () => {
      outcomes.push(start(i).then((value) => ({ ok: true, value, at: vt.elapsed() }), (error) => ({ ok: false, error, at: vt.elapsed() })));
    });
  }
  return outcomes;
}

// 1. Origin cooldown through an outage ---------------------------------------
async function outage(cooldown) {
  const vt = virtualTime(1);
  const OUTAGE = [10_000, 70_000];
  const DONE = 100_000;
  const counts = { total: 0, outage: 0, perPoller: new Map() };
  const server = await serve((req, res) => {
    const t = vt.elapsed();
    counts.total += 1;
    counts.perPoller.set(req.url, (counts.perPoller.get(req.url) ?? 0) + 1);
    if (t >= OUTAGE[0] && t < OUTAGE[1]) {
      counts.outage += 1;
      return json(res, 503, { error: 'maintenance' }, { 'retry-after': '30' });
    }
    json(res, 200, { status: t >= DONE ? 'done' : 'running', t });
  });
  const outcomes = await fleet(vt, 40, 2000, (i) =>
    poll(`${server.url}/jobs/${i}`, { interval: 2000, cooldown, env: vt.env, fetch: vt.fetch, isDone: (job) => job.status === 'done' }),
  );
  await vt.run(200_000);
  const results = await Promise.all(outcomes);
  await server.close();
  return { ...counts, gaveUp: results.filter((r) => !r.ok).length };
}

// 2. Shared loops --------------------------------------------------------------
async function sharing(share) {
  const vt = virtualTime(2);
  let requests = 0;
  const server = await serve((_req, res) => {
    requests += 1;
    json(res, 200, { status: vt.elapsed() >= 30_000 ? 'done' : 'running' });
  });
  const outcomes = await fleet(vt, 20, 0, () =>
    poll(`${server.url}/jobs/shared`, { interval: 1000, use: share ? [shareLoop()] : [], env: vt.env, fetch: vt.fetch, isDone: (job) => job.status === 'done' }),
  );
  await vt.run(60_000);
  const results = await Promise.all(outcomes);
  await server.close();
  return { requests, done: results.filter((r) => r.ok).length };
}

// 3. A throttled fleet ---------------------------------------------------------
async function throttled(use = []) {
  const vt = virtualTime(Number(process.env.BENCH_SEED ?? 3));
  const RATE = 50;
  const DONE = 30_000;
  let tokens = RATE;
  let refilled = 0;
  const counts = { requests: 0, served: 0, throttled: 0 };
  const server = await serve((req, res) => {
    const t = vt.elapsed();
    tokens = Math.min(RATE, tokens + ((t - refilled) * RATE) / 1000);
    refilled = t;
    counts.requests += 1;
    if (tokens < 1) {
      counts.throttled += 1;
      return json(res, 429, { error: 'slow down' }, { 'retry-after': '1' });
    }
    tokens -= 1;
    counts.served += 1;
    // Progress changes every second, so only the 429s (not unchanged data) slow the adaptive fleet.
    json(res, 200, { status: t >= DONE ? 'done' : 'running', progress: Math.floor(t / 1000) });
  });
  const outcomes = await fleet(vt, 100, 1000, () =>
    poll(`${server.url}${'/jobs/'}`, { interval: 1000, use, cooldown: false, env: vt.env, fetch: vt.fetch, isDone: (job) => job.status === 'done' }),
  );
  await vt.run(120_000);
  const results = await Promise.all(outcomes);
  await server.close();
  const seen = results.filter((r) => r.ok).map((r) => r.at - DONE).sort((a, b) => a - b);
  const q = (p) => seen[Math.min(seen.length - 1, Math.floor(p * seen.length))] ?? NaN;
  const ms = (value) => Math.round(value);
  return { ...counts, gaveUp: results.filter((r) => !r.ok).length, finished: seen.length, p50: ms(q(0.5)), p95: ms(q(0.95)), max: ms(seen.at(-1)) };
}

const pct = (part, whole) => `${((100 * part) / whole).toFixed(1)} %`;
const verdict = (ok) => (ok ? 'ok' : 'MISSED');

console.log('Cooperating pollers (virtual time, real HTTP on 127.0.0.1, seeded randomness)\n');

const independent = await outage(false);
const cooled = await outage(true);
console.log('1. 40 pollers of one origin, interval 2 s, 503 + Retry-After: 30 from t=10 s to t=70 s, jobs done at t=100 s');
console.log(`   cooldown: false   ${String(independent.outage).padStart(5)} requests during the outage (${independent.total} in all), gave up: ${independent.gaveUp}`);
console.log(`   cooldown (default)${String(cooled.outage).padStart(5)} requests during the outage (${cooled.total} in all), gave up: ${cooled.gaveUp}`);
console.log(`   ratio ${pct(cooled.outage, independent.outage)} (target <= 25 %) ${verdict(cooled.outage * 4 <= independent.outage)}\n`);

const apart = await sharing(false);
const together = await sharing(true);
console.log('2. 20 pollers of one URL, interval 1 s, job done at t=30 s');
console.log(`   alone         ${String(apart.requests).padStart(5)} requests (${(apart.requests / 20).toFixed(1)} per poller), finished: ${apart.done}`);
console.log(`   share()       ${String(together.requests).padStart(5)} requests, finished: ${together.done}`);
console.log(`   ratio 1/${(apart.requests / together.requests).toFixed(1)} (target 1/20) ${verdict(together.requests * 20 <= apart.requests)}\n`);

const fixed = await throttled();
const adaptive = await throttled([paceByData({ min: 1000, max: 10_000, ...(process.env.BENCH_FACTOR ? { factor: Number(process.env.BENCH_FACTOR) } : {}) })]);
console.log('3. 100 pollers at 1 s vs a server serving 50 req/s (429 + Retry-After: 1 beyond), jobs done at t=30 s');
for (const [label, r] of [['interval: 1000                          ', fixed], ['use: [paceByData({ min: 1000, max: 10000 })]', adaptive]]) {
  console.log(
    `   ${label} ${String(r.requests).padStart(5)} requests, ${String(r.throttled).padStart(5)} 429s (${pct(r.throttled, r.requests)}), gave up: ${r.gaveUp}, saw done after p50 ${r.p50} ms, p95 ${r.p95} ms, max ${r.max} ms`,
  );
}
console.log(
  `   429s ratio ${pct(adaptive.throttled, fixed.throttled)} (target <= 10 %) ${verdict(adaptive.throttled * 10 <= fixed.throttled)}; no client gave up: ${verdict(adaptive.gaveUp === 0)}`,
);
