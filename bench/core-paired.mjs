// `npm run bench:paired`: the CPU of a poll against a bare fetch loop alone,
// with more rounds than `npm run bench` gives it. Every loop runs in a process
// of its own, in chunks of CHUNK requests (200; a poll runs on to its next 200,
// so the CPU is taken per request sent), one loop at a time in a fresh seeded
// order each round (see bench/fixtures/paired-processes.mjs); the ratio is of
// the sums over ROUNDS rounds (150), beside the median of the per-round ratios,
// with the same bare loop in another process as a control. On Linux the main
// thread's share is printed too (the rest is V8's helpers: GC and compiles).
// POLLITE_BASELINE=<path to another build's dist/index.js> adds that build's
// poll as a fourth loop, to compare two versions of pollite in one run.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { compare, describe, mean, pairedInProcesses } from './fixtures/paired-processes.mjs';

const CHUNK = Number(process.env.CHUNK ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 150);

const server = fork(fileURLToPath(new URL('./fixtures/job-server.mjs', import.meta.url)), ['10']);
const { port } = await new Promise((done) => server.once('message', done));
const url = `http://127.0.0.1:${port}/jobs/1`;
const build = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const loops = {
  bare: { kind: 'bare' },
  control: { kind: 'bare' },
  poll: { kind: 'poll', build },
  ...(process.env.POLLITE_BASELINE ? { baseline: { kind: 'poll', build: resolve(process.env.POLLITE_BASELINE) } } : {}),
};
const { cpu, main } = await pairedInProcesses({ url, loops, chunk: CHUNK, rounds: ROUNDS });
console.log(`CPU per request, ${ROUNDS} rounds x ${CHUNK} requests (or a few more) per loop, each loop in its own process: bare loop ${mean(cpu.bare).toFixed(1)} µs`);
console.log(`  control   the bare loop again: ${describe(compare(cpu.control, cpu.bare))}`);
console.log(`  poll()    ${describe(compare(cpu.poll, cpu.bare))} vs bare (target <= 1.05x)`);
if (cpu.baseline) console.log(`  baseline  ${describe(compare(cpu.baseline, cpu.bare))} vs bare; poll ${describe(compare(cpu.poll, cpu.baseline))} vs the baseline`);
if (main) {
  console.log(`Main thread alone (the rest is V8's helper threads): bare loop ${mean(main.bare).toFixed(1)} µs`);
  console.log(`  control   ${describe(compare(main.control, main.bare))}`);
  console.log(`  poll()    ${describe(compare(main.poll, main.bare))}`);
}
server.kill();
