// `npm run bench:paired`: the CPU of a poll against a bare fetch loop, in
// short interleaved chunks instead of `npm run bench`'s long rounds, so both
// loops meet the same minute of a noisy machine. Each round runs every loop
// for CHUNK requests (200; a poll runs on to its next 200, so the CPU is taken
// per request sent) in a fresh seeded order, after a full GC; the ratio is of
// the sums over ROUNDS rounds (100), beside the median of the per-round
// ratios, with the same bare loop again as a control.
// POLLITE_BASELINE=<path to another build's dist/index.js> adds that build's
// poll as a fourth loop, to compare two versions of pollite in one run.
import { fork } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { poll } from '../dist/index.js';
import { mulberry32 } from '../dist/simulator/prng.js';
import { bareLoopOf, pollLoopOf } from './fixtures/loops.mjs';

const CHUNK = Number(process.env.CHUNK ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 100);
const baseline = process.env.POLLITE_BASELINE ? (await import(pathToFileURL(resolve(process.env.POLLITE_BASELINE)).href)).poll : undefined;

const server = fork(fileURLToPath(new URL('./fixtures/job-server.mjs', import.meta.url)), ['10']);
const { port } = await new Promise((done) => server.once('message', done));
const url = `http://127.0.0.1:${port}/jobs/1`;
const bareLoop = bareLoopOf(url);
const loops = { bare: bareLoop, control: bareLoop, poll: pollLoopOf(url, poll), ...(baseline ? { baseline: pollLoopOf(url, baseline) } : {}) };
const names = Object.keys(loops);
for (const name of names) await loops[name](500);
const used = Object.fromEntries(names.map((name) => [name, []]));
const random = mulberry32(15);
for (let round = 0; round < ROUNDS; round += 1) {
  const order = [...names];
  for (let k = order.length - 1; k > 0; k -= 1) {
    const j = Math.floor(random() * (k + 1));
    [order[k], order[j]] = [order[j], order[k]];
  }
  for (const name of order) {
    globalThis.gc?.();
    const start = process.cpuUsage();
    const requests = await loops[name](CHUNK);
    const { user, system } = process.cpuUsage(start);
    used[name].push((user + system) / requests);
  }
}
const sum = (values) => values.reduce((a, b) => a + b, 0);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ratio = (of, to) => `${(sum(used[of]) / sum(used[to])).toFixed(3)}x (sum), ${median(used[of].map((v, i) => v / used[to][i])).toFixed(3)}x (median of rounds)`;
console.log(`CPU per request, ${ROUNDS} rounds x ${CHUNK} requests (or a few more) per loop: bare loop ${(sum(used.bare) / ROUNDS).toFixed(1)} µs`);
console.log(`  control   the bare loop again: ${ratio('control', 'bare')}`);
console.log(`  poll()    ${ratio('poll', 'bare')} vs bare (target <= 1.05x)`);
if (baseline) console.log(`  baseline  ${ratio('baseline', 'bare')} vs bare; poll ${ratio('poll', 'baseline')} vs the baseline`);
server.kill();
