// `npm run bench:cluster`: what the cluster tier (pollite/cluster) saves one
// API when many processes poll and retry it, and what it costs Redis. N
// worker processes (64, CLUSTER_WORKERS) against one local node:http API per
// run, in four runs side
// by side: one lone process (the baseline), N processes without the cluster
// tier, N with it, and N with it whose Redis is stopped for 10 s in the
// middle of the run, then started (empty) again.
//   1. A 30 s outage (BENCH_OUTAGE_S): every request answered 503 +
//      Retry-After: 5; each process polls its own job at 1 s with
//      `cluster.cooldown()`. Requests during the outage. Target: <= 2x one
//      lone process's.
//   2. N x 50 calls (BENCH_CALLS) over 20 s (BENCH_CALLS_S) against an API
//      failing every request, `fetchWithRetry` with `retries: 3` and
//      `retry: { budget: cluster.budget() }` (without the tier: a
//      `createRetryBudget()` per process). Retries sent. Target: <= the
//      shared budget's capacity / retry cost (500 / 5 = 100), the gap run
//      included (while Redis is away each process spends its share of what
//      it last saw left).
//   3. N processes polling one job at 1 s for 30 s (BENCH_POLL_S) with
//      `cluster.share()`. Requests. Target: <= 1.2x one process's.
// In the Redis-gap runs every process must neither crash nor stall longer
// than the operation deadline (250 ms, BENCH_DEADLINE): the stall is the
// time from when a wait of its loop was due to end to its next request (and,
// for the budget, the longest withdraw or refund), beyond what the runs
// without Redis show (a busy machine fires timers late). The `alone` column
// counts the processes that fell back to working alone at some point
// (Redis failed or took longer than the deadline); `Redis/s/proc` is the
// commands Redis ran per second per process in the tier run (INFO stats),
// to size Redis by; `window` (scenario 1) the requests answered 503 in the
// outage's first second, before its cooldown reached every process (one
// for a lone process). Real time, real processes,
// real Redis (Debian's redis-server; REDIS_SERVER overrides), so the figures
// vary a little from run to run. BENCH_GAP_S sets the gap. BENCH_AT_ONCE
// says which runs of a scenario go side by side: `pairs` (the default: the
// two without Redis, then the two with it), `all`, or `one` (one after the
// other: for a busy machine, where late timers blur the figures).
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createConnection, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const int = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`Expected ${name} to be a positive integer, got ${process.env[name]}`);
  return value;
};
const WORKERS = int('CLUSTER_WORKERS', 64);
const OUTAGE = int('BENCH_OUTAGE_S', 30) * 1000;
const POLL = int('BENCH_POLL_S', 30) * 1000;
const CALLS = int('BENCH_CALLS', 50);
const CALLS_OVER = int('BENCH_CALLS_S', 20) * 1000;
const GAP = int('BENCH_GAP_S', 10) * 1000;
const DEADLINE = int('BENCH_DEADLINE', 250);
const AT_ONCE = process.env.BENCH_AT_ONCE ?? 'pairs';
if (!['pairs', 'all', 'one'].includes(AT_ONCE)) throw new TypeError(`Expected BENCH_AT_ONCE to be pairs, all or one, got ${AT_ONCE}`);
/** Healthy time before and after the outage of scenario 1, ms. */
const MARGIN = 3000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

// ---------------------------------------------------------------- the worker

/** One process of a run: told its part over IPC, it reports what it saw and exits. */
async function worker() {
  const { poll, fetchWithRetry, createRetryBudget } = await import('../dist/index.js');
  const { createCluster } = await import('../dist/cluster/index.js');
  // Orphaned (the bench died): leave at once rather than wait forever.
  process.on('disconnect', () => process.exit(1));
  const job = await new Promise((resolve) => process.once('message', resolve));
  let cluster;
  let client;
  const statuses = [];
  if (job.redisUrl) {
    const { createClient } = await import('redis');
    client = createClient({ url: job.redisUrl, socket: { reconnectStrategy: () => 200 } });
    client.on('error', () => undefined);
    await client.connect();
    cluster = createCluster({ redis: client, prefix: 'bench:', deadline: DEADLINE, onStatus: (s) => statuses.push(s.type) });
  }
  process.send({ type: 'ready' });
  const { startAt } = await new Promise((resolve) => process.once('message', resolve));
  await sleep(startAt - Date.now());
  // How late this process's own timers fire (a busy machine): a stall is Redis's fault only beyond it.
  let lag = 0;
  let expected = Date.now() + 100;
  const probe = setInterval(() => {
    lag = Math.max(lag, Date.now() - expected);
    expected = Date.now() + 100;
  }, 100);
  let stall = 0;
  let due;
  const onEvent = (event) => {
    if (event.type === 'wait' || event.type === 'retry' || event.type === 'cooldown') due = event.at;
    else if (event.type === 'request' && due !== undefined) {
      stall = Math.max(stall, Date.now() - due);
      due = undefined;
    }
  };
  const until = new AbortController();
  setTimeout(() => until.abort(), job.runFor);
  if (job.scenario === 'budget') {
    const shared = cluster ? cluster.budget() : createRetryBudget();
    const timed = (fn) => async (...args) => {
      const started = Date.now();
      try {
        return await fn(...args);
      } finally {
        stall = Math.max(stall, Date.now() - started);
      }
    };
    const budget = { ...shared, withdraw: timed((cost) => shared.withdraw(cost)), refund: timed(() => shared.refund()) };
    const every = CALLS_OVER / CALLS;
    for (let k = 0; k < CALLS; k += 1) {
      await sleep(startAt + k * every + (job.index * every) / job.of - Date.now());
      const response = await fetchWithRetry(`${job.api}/fail`, { retry: { budget, retries: 3, backoff: () => 20 } });
      await response.body?.cancel();
    }
  } else {
    const use = !cluster ? [] : job.scenario === 'outage' ? [cluster.cooldown()] : [cluster.share()];
    const path = job.scenario === 'outage' ? `/jobs/${job.index}` : '/jobs/shared';
    await poll(`${job.api}${path}`, { interval: 1000, use, isDone: () => false, signal: until.signal, onEvent }).catch((error) => {
      if (!until.signal.aborted) throw error;
    });
  }
  clearInterval(probe);
  process.send({ type: 'done', stall, lag, statuses });
  await cluster?.close();
  await client?.disconnect().catch(() => undefined);
  process.exit(0);
}

// ------------------------------------------------------------------ the runs

async function freePort() {
  const server = createTcpServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A redis-server of the bench's own (nothing saved), that can be stopped and started again on its port. */
async function redisServer(path) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pollite-bench-redis-'));
  let child;
  const ping = () =>
    new Promise((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => (socket.destroy(), resolve(data.toString().startsWith('+PONG'))));
      socket.once('error', () => (socket.destroy(), resolve(false)));
    });
  const start = async () => {
    child = spawn(path, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    while (!(await ping())) await sleep(50);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  process.once('exit', () => child?.kill('SIGKILL'));
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop, close: async () => (await stop(), rmSync(dir, { recursive: true, force: true })) };
}

/** Redis's `total_commands_processed` (INFO stats), by a raw connection: no client library in the bench's own process. */
function commandsProcessed(url) {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port: Number(port), host: '127.0.0.1' });
    let text = '';
    socket.once('connect', () => socket.write('INFO stats\r\n'));
    socket.on('data', (data) => {
      text += data.toString();
      const header = /^\$(\d+)\r\n/.exec(text);
      if (!header || Buffer.byteLength(text) < header[0].length + Number(header[1])) return;
      socket.destroy();
      resolve(Number(/total_commands_processed:(\d+)/.exec(text)?.[1]));
    });
    socket.once('error', reject);
  });
}

/** The API of one run: counts requests, and answers as `answer(path, t)` says (t: ms since the run started). */
async function api(answer) {
  const seen = [];
  let startAt = Infinity;
  const server = createServer((req, res) => {
    const t = Date.now() - startAt;
    seen.push({ t, path: req.url });
    const { status, headers = {} } = answer(req.url, t);
    const body = JSON.stringify({ t });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  });
  server.keepAliveTimeout = 5000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    start: (at) => (startAt = at),
    count: (from = -Infinity, to = Infinity) => seen.filter((r) => r.t >= from && r.t < to).length,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}

/** Every worker still running: killed if the bench ends early. */
const live = new Set();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Forks `n` workers for one run; resolves once they are all connected. */
async function workers(n, job) {
  const children = await Promise.all(
    Array.from({ length: n }, async (_, index) => {
      const child = fork(fileURLToPath(import.meta.url), ['--worker'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      live.add(child);
      const report = { child, done: undefined, code: undefined };
      report.exited = new Promise((resolve) => child.once('exit', (code) => (live.delete(child), resolve((report.code = code)))));
      child.on('message', (message) => message.type === 'done' && (report.done = message));
      const ready = new Promise((resolve, reject) => {
        child.once('message', resolve);
        report.exited.then(() => reject(new Error('a worker exited before it was ready')));
      });
      child.send({ ...job, index, of: n });
      await ready;
      return report;
    }),
  );
  return children;
}

const VARIANTS = [
  { name: 'one lone process', n: 1, tier: false },
  { name: `${WORKERS} processes, no cluster tier`, n: WORKERS, tier: false },
  { name: `${WORKERS} processes, cluster tier`, n: WORKERS, tier: true },
  { name: `${WORKERS} processes, cluster tier, Redis gap`, n: WORKERS, tier: true, gap: true },
];

/** Runs `variants` of one scenario side by side; resolves with each one's API, workers and Redis. */
async function runGroup(variants, scenario, runFor, answer, gapAt, redisPath) {
  const runs = await Promise.all(
    variants.map(async (variant) => {
      const server = await api(answer);
      const redis = variant.tier ? await redisServer(redisPath) : undefined;
      const children = await workers(variant.n, { scenario, runFor, api: server.url, redisUrl: redis?.url });
      return { variant, server, redis, children };
    }),
  );
  const startAt = Date.now() + 1000;
  for (const run of runs) {
    run.server.start(startAt);
    for (const { child } of run.children) child.send({ startAt });
  }
  const plainRun = runs.find((run) => run.variant.tier && !run.variant.gap);
  // Counted from the start (the connections and the first scripts, SCRIPT LOAD included, count too: a fleet pays them on every deploy).
  const commandsBefore = plainRun && (await commandsProcessed(plainRun.redis.url));
  const gapRun = runs.find((run) => run.variant.gap);
  if (gapRun) {
    await sleep(startAt + gapAt - Date.now());
    await gapRun.redis.stop();
    await sleep(startAt + gapAt + GAP - Date.now());
    await gapRun.redis.start();
  }
  if (plainRun) {
    const seconds = (runFor + 1000) / 1000;
    // Before the first worker exits and closes its connection: the run's commands, not the goodbyes.
    await sleep(startAt + runFor - 200 - Date.now());
    plainRun.commandsPerSecond = ((await commandsProcessed(plainRun.redis.url)) - commandsBefore) / seconds / plainRun.variant.n;
  }
  await Promise.all(runs.flatMap((run) => run.children.map((c) => c.exited)));
  for (const run of runs) {
    await run.server.close();
    await run.redis?.close();
  }
  return runs;
}

/** Runs the four variants of one scenario, as many side by side as BENCH_AT_ONCE says. */
async function runScenario(...args) {
  const groups = AT_ONCE === 'all' ? [VARIANTS] : AT_ONCE === 'pairs' ? [VARIANTS.slice(0, 2), VARIANTS.slice(2)] : VARIANTS.map((v) => [v]);
  const runs = [];
  for (const group of groups) runs.push(...(await runGroup(group, ...args)));
  return runs;
}

// --------------------------------------------------------------- the report

const pad = (text, width) => String(text).padEnd(width);
const num = (value, width = 9) => String(value).padStart(width);

const longestStall = (run) => Math.max(...run.children.map((c) => c.done?.stall ?? Infinity));
const longestLag = (run) => Math.max(...run.children.map((c) => c.done?.lag ?? Infinity));
/** The most any process of `run` stalled beyond how late its own timers fired. */
const excessStall = (run) => Math.max(...run.children.map((c) => (c.done ? Math.max(0, c.done.stall - c.done.lag) : Infinity)));
const fellBack = (run) => run.children.filter((c) => c.done?.statuses.includes('local')).length;

/**
 * One scenario's table: each variant's figure, its ratio to the lone
 * process, its longest stall and how many of its processes fell back to
 * polling alone, and the target (`target` says it and whether it was
 * met). The gap run passes when none of its processes crashed and none
 * stalled longer than the deadline beyond how late its own timers fired
 * (the `lag` column: what the machine itself adds when it is busy).
 */
function report(title, unit, runs, figure, target, gapWindow, extra) {
  console.log(`\n${title}`);
  console.log(`   ${pad('', 44)}${num(unit)}  ${pad('', 10)}${num('stall', 7)}${num('lag', 8)}  ${pad('alone', 7)}${num('Redis/s/proc', 13)}  ${extra ? pad(extra.name, 8) : ''}`);
  const lone = figure(runs[0]);
  const plain = runs.find((r) => r.variant.tier && !r.variant.gap);
  let met = true;
  for (const run of runs) {
    const value = figure(run);
    let note = '';
    if (run === plain) {
      const [text, ok] = target(value, lone);
      met &&= ok;
      note = `${text}: ${ok ? 'ok' : 'MISSED'}`;
    }
    if (run.variant.gap) note = `the gap cost ${value - figure(plain)} (requests in the ${GAP / 1000} s gap: ${run.server.count(...gapWindow)}, vs ${plain.server.count(...gapWindow)} with Redis)`;
    const ratio = lone > 0 ? `${(value / lone).toFixed(1)}x lone` : '';
    const alone = run.variant.tier ? `${fellBack(run)}/${run.children.length}` : '-';
    const ms = (value) => `${Math.round(value)} ms`;
    const load = run.commandsPerSecond === undefined ? '-' : run.commandsPerSecond.toFixed(1);
    const more = extra ? pad(extra.value(run), 8) : '';
    console.log(`   ${pad(run.variant.name, 44)}${num(value)}  ${pad(ratio, 10)}${num(ms(longestStall(run)), 7)}${num(ms(longestLag(run)), 8)}  ${pad(alone, 7)}${num(load, 13)}  ${more}${note}`);
  }
  const gapRun = runs.find((run) => run.variant.gap);
  const crashed = gapRun.children.filter((c) => c.code !== 0 || !c.done).length;
  const added = excessStall(gapRun);
  const back = gapRun.children.filter((c) => c.done?.statuses.at(-1) === 'connected').length;
  const ok = crashed === 0 && added <= DEADLINE;
  console.log(
    `   Redis gap: ${crashed} of ${gapRun.children.length} processes crashed; longest stall beyond the process's own timer lag ${Math.round(added)} ms (deadline ${DEADLINE} ms): ${ok ? 'ok' : 'MISSED'}; ${back} cooperate again after it`,
  );
  return met && ok;
}

async function main() {
  const { findTool } = await import('../scripts/find-tools.mjs');
  const tool = findTool('redis-server');
  if (!tool.found) {
    console.error(`bench:cluster needs a redis-server: ${tool.reason}`);
    process.exit(1);
  }
  console.log(`pollite bench:cluster: ${WORKERS} worker processes (CLUSTER_WORKERS) per run, one local API per run, Redis ${/v=([\d.]+)/.exec(tool.version)?.[1] ?? '?'}, deadline ${DEADLINE} ms.`);
  console.log(
    `Runs side by side (BENCH_AT_ONCE): ${{ pairs: 'the two without Redis, then the two with it', all: 'all four', one: 'one at a time' }[AT_ONCE]}. The last run's Redis is stopped for ${GAP / 1000} s (BENCH_GAP_S) in the middle, then started empty.`,
  );
  const started = Date.now();
  const verdicts = [];

  const outageEnd = MARGIN + OUTAGE;
  const outage = await runScenario(
    'outage',
    outageEnd + MARGIN,
    (_path, t) => (t >= MARGIN && t < outageEnd ? { status: 503, headers: { 'retry-after': '5' } } : { status: 200 }),
    MARGIN + OUTAGE / 2 - GAP / 2,
    tool.path,
  );
  const gapIn = (at) => [at, at + GAP];
  verdicts.push(
    report(
      `1. A ${OUTAGE / 1000} s outage, every request 503 + Retry-After: 5; each process polls its own job at 1 s. Requests during the outage:`,
      'requests',
      outage,
      (run) => run.server.count(MARGIN, outageEnd),
      (value, lone) => ['target <= 2x lone', value <= 2 * lone],
      gapIn(MARGIN + OUTAGE / 2 - GAP / 2),
      { name: 'window', value: (run) => run.server.count(MARGIN, MARGIN + 1000) },
    ),
  );

  const calls = await runScenario('budget', CALLS_OVER + 5000, () => ({ status: 503 }), CALLS_OVER / 2 - GAP / 2, tool.path);
  const target = 500 / 5;
  verdicts.push(
    report(
      `2. ${WORKERS} x ${CALLS} calls over ${CALLS_OVER / 1000} s (1 x ${CALLS} alone), fetchWithRetry with retries: 3, against an API failing every request. Retries sent:`,
      'retries',
      calls,
      (run) => run.server.seen.length - run.variant.n * CALLS,
      (value) => [`target <= capacity / retry cost = ${target}`, value <= target],
      gapIn(CALLS_OVER / 2 - GAP / 2),
    ),
  );
  // One budget even during the fault: the gap run's fleet stays within it too.
  const gapRetries = calls.find((run) => run.variant.gap);
  const gapValue = gapRetries.server.seen.length - gapRetries.variant.n * CALLS;
  console.log(`   Redis gap: the fleet sent ${gapValue} retries in all (target <= ${target}): ${gapValue <= target ? 'ok' : 'MISSED'}`);
  verdicts.push(gapValue <= target);

  const job = await runScenario('job', POLL, () => ({ status: 200 }), POLL / 2 - GAP / 2, tool.path);
  verdicts.push(
    report(
      `3. Every process polls one job at 1 s for ${POLL / 1000} s. Requests:`,
      'requests',
      job,
      (run) => run.server.seen.length,
      (value, lone) => ['target <= 1.2x lone', value <= 1.2 * lone],
      gapIn(POLL / 2 - GAP / 2),
    ),
  );
  console.log(`\n${Math.round((Date.now() - started) / 1000)} s in all.`);
  if (!verdicts.every(Boolean)) process.exitCode = 1;
}

// Last, so that every declaration above is initialised: a worker is this same file, forked with --worker.
if (process.argv[2] === '--worker') await worker();
else await main();
