// `npm run bench:instructions`: the CPU of a poll against a bare fetch loop,
// counted in instructions instead of timed. valgrind's callgrind counts the
// user-space instructions a process executes on every thread (the kernel's
// share of a request, the same for both loops, is not in it), so this figure
// moves far less with a noisy machine than CPU time does (on the project's
// 2-core VM a chunk's CPU time moves ±20% from round to round); not nothing,
// since V8 decides some things by the clock, and a process under callgrind
// runs about 50 times slower. Each loop runs in processes of its own under
// callgrind (two at a time, one per core), PROCESSES (3) per loop: WARM
// requests uninstrumented, then WINDOWS windows of WINDOW requests each
// counted (as the CPU benches, in calls of 200 requests). What stays is V8's
// own churn: it goes on recompiling undici's and Node's functions in a steady
// loop and collects when it collects, so a window's count moves a few per
// cent, and a process's mean by as much again (measured: the same bare loop
// at 298k-321k per request in four processes); hence several processes, and
// an interval from the processes' own means (Welch's t). The count is split
// into V8's optimizing compiler, its garbage collector, and the rest: the
// loop's own code, fetch's and Node's (the steadiest part; the split is
// approximate, see fixtures/callgrind.mjs).
// Then the same pair against an in-memory fetch, in two processes per loop
// of 4,000 warm-up requests and two windows of 10,000: pollite's own work per
// request, without the network.
// POLLITE_BASELINE=<other build>/dist/index.js counts that build's poll too.
// Needs valgrind (Debian's valgrind package); takes about 15 minutes.
import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countedLoop, hasCallgrind } from './fixtures/callgrind.mjs';
import { mean, processesInterval, verdict } from './fixtures/interval.mjs';

const WARM = Number(process.env.WARM ?? 4000);
const WINDOW = Number(process.env.WINDOW ?? 2000);
const WINDOWS = Number(process.env.WINDOWS ?? 4);
const PROCESSES = Number(process.env.PROCESSES ?? 3);
const TARGET = 1.05;

if (!hasCallgrind()) {
  console.error('bench:instructions needs valgrind and callgrind_control (Debian: apt-get install valgrind).');
  process.exit(1);
}

const server = fork(fileURLToPath(new URL('./fixtures/job-server.mjs', import.meta.url)), ['10']);
const { port } = await new Promise((done) => server.once('message', done));
const url = `http://127.0.0.1:${port}/jobs/1`;
const build = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const baseline = process.env.POLLITE_BASELINE ? resolve(process.env.POLLITE_BASELINE) : undefined;

const k = (instructions) => `${(instructions / 1000).toFixed(1)}k`;
const parts = { total: (w) => w.total, rest: (w) => w.total - w.compiler - w.gc, compiler: (w) => w.compiler, gc: (w) => w.gc };
/** Instructions per request of `part` in each window of one process. */
const perRequest = (windows, part) => windows.map((w) => parts[part](w) / w.requests);

/** Counts one process of `loop` ({ kind, build? }): its windows. */
async function countProcess(name, loop, { warm, window, windows }) {
  const counted = await countedLoop({ url, ...loop });
  try {
    await counted.warm(warm);
    const results = [];
    for (let w = 0; w < windows; w += 1) results.push(await counted.window(window));
    console.log(`  ${name.padEnd(8)} ${perRequest(results, 'total').map(k).join(', ')} instructions per request`);
    return results;
  } finally {
    await counted.stop();
  }
}

/** `processes` processes of each of `loops`, two at a time (one per core): each loop's processes, each with its windows. */
async function count(loops, { processes = PROCESSES, ...shape }) {
  const jobs = [];
  for (let p = 0; p < processes; p += 1) for (const name of Object.keys(loops)) jobs.push({ name, p });
  const results = Object.fromEntries(Object.keys(loops).map((name) => [name, []]));
  for (let i = 0; i < jobs.length; i += 2) {
    await Promise.all(jobs.slice(i, i + 2).map(async ({ name, p }) => (results[name][p] = await countProcess(name, loops[name], shape))));
  }
  return results;
}

/** One line per part: each loop's mean per request, and `of`/`to` with its interval from the processes' means; returns the total's interval. */
function report(results, of, to) {
  let total;
  for (const part of Object.keys(parts)) {
    const [a, b] = [results[of], results[to]].map((processes) => processes.map((windows) => mean(perRequest(windows, part))));
    const interval = processesInterval(a, b);
    console.log(`  ${part.padEnd(9)} ${to} ${k(mean(b))}, ${of} ${k(mean(a))}: ${(mean(a) / mean(b)).toFixed(3)}x (90% interval ${interval[0].toFixed(3)}-${interval[1].toFixed(3)})`);
    if (part === 'total') total = interval;
  }
  return total;
}

try {
  console.log(`Over the network: ${PROCESSES} processes per loop, each ${WARM} requests to warm up, then ${WINDOWS} windows of ${WINDOW} counted:`);
  const network = await count(
    { bare: { kind: 'bare' }, poll: { kind: 'poll', build }, ...(baseline ? { baseline: { kind: 'poll', build: baseline } } : {}) },
    { warm: WARM, window: WINDOW, windows: WINDOWS },
  );
  console.log("Instructions per request (total = rest + V8's optimizing compiler + its collector):");
  const total = report(network, 'poll', 'bare');
  if (baseline) report(network, 'poll', 'baseline');
  console.log(`poll() vs a bare fetch loop, instructions: target <= ${TARGET}x: ${verdict(total, TARGET)}`);

  console.log("Without the network (an in-memory fetch answering 304): pollite's own work");
  const memory = await count({ bare: { kind: 'bare-memory' }, poll: { kind: 'poll-memory', build } }, { warm: 4000, window: 10_000, windows: 2, processes: 2 });
  const [bare, poll] = [mean(memory.bare.flatMap((w) => perRequest(w, 'rest'))), mean(memory.poll.flatMap((w) => perRequest(w, 'rest')))];
  console.log(`  without V8's compiler and collector: bare loop ${k(bare)}, poll() ${k(poll)} (+${k(poll - bare)} per request)`);
} finally {
  server.kill();
}
