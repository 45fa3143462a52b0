// `npm run bench:paired`: the CPU of a poll against a bare fetch loop alone,
// with more rounds than `npm run bench` gives it. Every loop runs in a process
// of its own, in chunks of CHUNK requests (200; a poll runs on to its next 200,
// so the CPU is taken per request sent), one loop at a time in a fresh seeded
// order each round (see bench/fixtures/paired-processes.mjs). V8's compiler
// and collector decide a little differently in every process: two processes
// running the same bare loop differed by up to 9% over a whole run. So each
// loop runs in two processes, their figures averaged (which halves the
// variance one process's luck adds); the two bare ones against each other
// are the control (one process against one: it shows more of that luck than
// the two-against-two comparison carries). And RUNS runs (4) of ROUNDS rounds
// (80), each with fresh processes: the ratio is of the sums over all runs,
// its 90% interval Student's t over the runs' own ratios (see
// fixtures/interval.mjs), with a verdict on the target. On Linux the main
// thread's share is printed too (the rest is V8's helpers: GC and compiles).
// POLLITE_BASELINE=<path to another build's dist/index.js> adds that build's
// poll (two more processes), to compare two versions of pollite in one run.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { mean, runsInterval, sum, verdict } from './fixtures/interval.mjs';
import { compare, describe, pairedInProcesses } from './fixtures/paired-processes.mjs';

const CHUNK = Number(process.env.CHUNK ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 80);
const RUNS = Number(process.env.RUNS ?? 4);
const TARGET = 1.05;

const server = fork(fileURLToPath(new URL('./fixtures/job-server.mjs', import.meta.url)), ['10']);
const { port } = await new Promise((done) => server.once('message', done));
const url = `http://127.0.0.1:${port}/jobs/1`;
const build = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const baseline = process.env.POLLITE_BASELINE ? { kind: 'poll', build: resolve(process.env.POLLITE_BASELINE) } : undefined;
// Each loop in two processes: `name` and `name'`.
const loops = {
  bare: { kind: 'bare' },
  "bare'": { kind: 'bare' },
  poll: { kind: 'poll', build },
  "poll'": { kind: 'poll', build },
  ...(baseline ? { baseline, "baseline'": baseline } : {}),
};
/** Per round, the mean of the two processes of each loop (`name`), and the bare loop's second process alone (`control`) against its first (`bare1`). */
const merge = (figures) => {
  if (!figures) return null;
  const both = (name) => figures[name].map((value, round) => (value + figures[`${name}'`][round]) / 2);
  return { bare: both('bare'), poll: both('poll'), ...(baseline ? { baseline: both('baseline') } : {}), bare1: figures.bare, control: figures["bare'"] };
};
const runs = [];
try {
  for (let run = 0; run < RUNS; run += 1) {
    const measured = await pairedInProcesses({ url, loops, chunk: CHUNK, rounds: ROUNDS, seed: 15 + run });
    const [cpu, main] = [merge(measured.cpu), merge(measured.main)];
    runs.push({ cpu, main });
    const line = (of, to) => `${compare(of, to).sum.toFixed(3)}x`;
    console.log(
      `run ${run + 1}/${RUNS}: bare loop ${mean(cpu.bare).toFixed(1)} µs per request; poll ${line(cpu.poll, cpu.bare)}, control ${line(cpu.control, cpu.bare1)}` +
        (cpu.baseline ? `, baseline ${line(cpu.baseline, cpu.bare)}` : '') +
        (main ? `; main thread: poll ${line(main.poll, main.bare)}, control ${line(main.control, main.bare1)}` : ''),
    );
  }
} finally {
  server.kill();
}

/** Every run's rounds of `of` against `to`, pooled: the ratio of sums, and its interval from the runs' own ratios. */
const pooled = (part, of, to) => {
  const total = (name) => sum(runs.map((run) => sum(run[part][name])));
  const ratio = total(of) / total(to);
  const interval = runsInterval(runs.map((run) => compare(run[part][of], run[part][to]).sum));
  return { ratio, interval, text: `${ratio.toFixed(3)}x (90% interval over the runs ${interval[0].toFixed(3)}-${interval[1].toFixed(3)})` };
};
const cpu = runs.map((run) => run.cpu);
console.log(`CPU per request, ${RUNS} runs x ${ROUNDS} rounds x ${CHUNK} requests (or a few more) per loop, each loop in two processes of its own: bare loop ${mean(cpu.flatMap((c) => c.bare)).toFixed(1)} µs`);
console.log(`  control   one bare process against the other: ${pooled('cpu', 'control', 'bare1').text}`);
const poll = pooled('cpu', 'poll', 'bare');
console.log(`  poll()    ${poll.text} vs bare (target <= ${TARGET}x: ${verdict(poll.interval, TARGET)})`);
console.log(`            last run alone: ${describe(compare(cpu.at(-1).poll, cpu.at(-1).bare))}`);
if (baseline) console.log(`  baseline  ${pooled('cpu', 'baseline', 'bare').text} vs bare; poll ${pooled('cpu', 'poll', 'baseline').text} vs the baseline`);
if (runs.every((run) => run.main)) {
  console.log(`Main thread alone (the rest is V8's helper threads): bare loop ${mean(runs.flatMap((run) => run.main.bare)).toFixed(1)} µs`);
  console.log(`  control   ${pooled('main', 'control', 'bare1').text}`);
  console.log(`  poll()    ${pooled('main', 'poll', 'bare').text}`);
}
