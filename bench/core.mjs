// `npm run bench`: what politeness costs the client.
//   1. CPU per poll iteration, relative to a bare fetch loop sending the
//      same requests (same If-None-Match, same JSON parsing, same 0 ms pause),
//      measured in this run with each loop in a process of its own, in short
//      chunks taken in turn (target: <= 1.05x, issue 15).
//      poll also sends `Cache-Control: max-age=0` with a conditional request
//      (so that Express and Koa answer 304): a bare loop sending that header
//      too is measured beside it, to tell that header's cost from pollite's.
//   2. pollite's own work, without the network: bytes allocated and CPU per
//      iteration against an in-memory fetch answering 304, beside a bare loop
//      against the same fetch (allocation is counted, not timed: it does not
//      move with the machine's noise, and garbage is most of what a poll adds);
//      then the bytes allocated per iteration over the network, both loops.
//   3. Heap after 100,000 iterations sharing one AbortSignal (target: flat),
//      and the listeners left on that signal (target: 0).
//   4. min+gz size of `import { poll } from 'pollite'` (target: <= 3,584 B, issue 12),
//      beside ky's and query-core's, bundled the same way.
// The server runs in a child process so only the client's CPU is counted.
import { fork } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { GCProfiler, getHeapSpaceStatistics } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { poll } from '../dist/index.js';
import { bareInMemoryOf, bareLoopOf, pollInMemoryOf, pollLoopOf } from './fixtures/loops.mjs';
import { mean, verdict } from './fixtures/interval.mjs';
import { compare, describe, pairedInProcesses } from './fixtures/paired-processes.mjs';

const CHUNK = Number(process.env.BENCH_CHUNK ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const HEAP_ITERATIONS = Number(process.env.BENCH_HEAP_ITERATIONS ?? 100_000);

const server = fork(fileURLToPath(new URL('./fixtures/job-server.mjs', import.meta.url)), ['10']);
const { port } = await new Promise((resolve) => server.once('message', resolve));
const url = `http://127.0.0.1:${port}/jobs/1`;

/** The baseline, and poll sending the same requests (see bench/fixtures/loops.mjs), in this process for the counts below. */
const bareLoop = bareLoopOf(url);
const pollLoop = pollLoopOf(url, poll);

const thisBuild = fileURLToPath(new URL('../dist/index.js', import.meta.url));
// Each loop in a process of its own, in short chunks, one loop at a time in a
// fresh seeded order each round (see bench/fixtures/paired-processes.mjs).
const { cpu, main } = await pairedInProcesses({
  url,
  chunk: CHUNK,
  rounds: ROUNDS,
  loops: {
    bare: { kind: 'bare' },
    // The same bare loop once more, as a control: its ratio to the first is what this machine's noise alone gives.
    again: { kind: 'bare' },
    cancellable: { kind: 'bare-signal' },
    sameHeaders: { kind: 'bare-cache-control' },
    poll: { kind: 'poll', build: thisBuild },
  },
});
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`CPU per request (${ROUNDS} rounds x ${CHUNK} requests per loop, each loop in its own process; ratio of sums, then the median of per-round ratios):`);
console.log(`  bare fetch loop   ${mean(cpu.bare).toFixed(1)} µs`);
console.log(`  + AbortSignal     ${mean(cpu.cancellable).toFixed(1)} µs`);
console.log(`  poll()            ${mean(cpu.poll).toFixed(1)} µs`);
const pollVsBare = compare(cpu.poll, cpu.bare);
console.log(`  ratio             ${describe(pollVsBare)} vs bare (target <= 1.05x: ${verdict(pollVsBare.interval, 1.05)} by this run's rounds, one process per loop; npm run bench:paired pools runs of fresh processes)`);
console.log(`                    ${describe(compare(cpu.poll, cpu.cancellable))} vs bare + AbortSignal`);
console.log(`  + Cache-Control   the bare loop with poll's headers: ${describe(compare(cpu.sameHeaders, cpu.bare))} vs bare; poll ${compare(cpu.poll, cpu.sameHeaders).sum.toFixed(3)}x vs it`);
console.log(`  control           the bare loop in another process: ${describe(compare(cpu.again, cpu.bare))} (the noise floor of this run; a ratio within it is not a measured cost)`);
if (main) console.log(`  main thread       poll ${describe(compare(main.poll, main.bare))} vs bare; control ${compare(main.again, main.bare).sum.toFixed(3)}x (the rest is V8's helper threads)`);

// pollite's own work: the same loops against a fetch that answers from memory (bench/fixtures/loops.mjs).
const bareInMemory = bareInMemoryOf(url);
const pollInMemory = pollInMemoryOf(url, poll);
const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_used_size;
/**
 * Bytes allocated per request: the young generation's growth over short
 * batches, a batch with a collection in it left out (and more batches run,
 * up to three times as many, until `batches / 3` are clean).
 */
const allocated = async (loop, batch = 400, batches = 30) => {
  const grown = [];
  for (let b = 0; b < batches * 3 && (b < batches || grown.length < batches / 3); b += 1) {
    const collections = new GCProfiler();
    collections.start();
    const before = newSpace();
    const sent = await loop(batch);
    const after = newSpace();
    // Per request sent: a poll over the network runs a few requests past its batch (about 5%, at 100).
    if (collections.stop().statistics.length === 0) grown.push((after - before) / sent);
  }
  return grown.length ? median(grown) : NaN;
};
await bareInMemory(2000);
await pollInMemory(2000);
const memory = { bare: [], poll: [] };
for (let round = 0; round < 5; round += 1) {
  for (const [name, loop] of [['bare', bareInMemory], ['poll', pollInMemory]]) memory[name].push(await allocated(loop));
}
// Timed as the network's loops are: each in a process of its own (in one process, taking turns, poll's share came out 4-6 times larger).
const timed = await pairedInProcesses({ url, chunk: 500, rounds: 40, loops: { bare: { kind: 'bare-memory' }, poll: { kind: 'poll-memory', build: thisBuild } } });
const [memoryBare, memoryPoll] = [mean(timed.cpu.bare), mean(timed.cpu.poll)];
console.log('Without the network (an in-memory fetch answering 304; bytes: median of 5 rounds, CPU: 40 rounds x 500 per loop, each in its own process):');
console.log(`  bare loop   ${median(memory.bare).toFixed(0)} B allocated, ${memoryBare.toFixed(1)} µs CPU per iteration`);
console.log(`  poll()      ${median(memory.poll).toFixed(0)} B allocated, ${memoryPoll.toFixed(1)} µs CPU per iteration: +${(median(memory.poll) - median(memory.bare)).toFixed(0)} B, +${(memoryPoll - memoryBare).toFixed(1)} µs`);

// The same count over the network, where fetch itself allocates: poll's share of a real
// iteration's garbage (the bare loop's count moved about 2% between runs, the CPU ratio 10-15%).
// Warm both paths up in this process (JIT, connection pool).
await bareLoop(500);
await pollLoop(500);
const overNetwork = { bare: [], poll: [] };
for (let round = 0; round < 3; round += 1) {
  overNetwork.bare.push(await allocated(bareLoop, 100, 20));
  overNetwork.poll.push(await allocated(pollLoop, 100, 20));
}
const [netBare, netPoll] = [median(overNetwork.bare), median(overNetwork.poll)];
console.log('Over the network (the job server above; median of 3 rounds):');
console.log(`  bare loop   ${netBare.toFixed(0)} B allocated per iteration`);
console.log(`  poll()      ${netPoll.toFixed(0)} B allocated per iteration: ${(netPoll / netBare).toFixed(3)}x the bare loop's`);

// Heap: one AbortSignal reused by every iteration.
const controller = new AbortController();
const heap = () => {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};
await pollLoop(10_000, controller.signal);
const before = heap();
await pollLoop(HEAP_ITERATIONS, controller.signal);
const after = heap();
console.log(`Heap with one AbortSignal${globalThis.gc ? '' : ' (run with --expose-gc for exact figures)'}:`);
console.log(`  after 10,000 iterations   ${before.toFixed(2)} MB`);
console.log(`  after ${(10_000 + HEAP_ITERATIONS).toLocaleString('en')} iterations  ${after.toFixed(2)} MB   (growth ${(after - before).toFixed(2)} MB)`);
console.log(`  listeners left on the signal: ${getEventListeners(controller.signal, 'abort').length}`);

/** min+gz bytes of `code` bundled by esbuild, as a user's bundler would ship it. */
const bundleSize = async (code) => {
  const bundled = await build({
    stdin: { contents: code, resolveDir: fileURLToPath(new URL('..', import.meta.url)) },
    bundle: true,
    minify: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  return gzipSync(bundled.outputFiles[0].contents, { level: 9 }).length;
};
const size = await bundleSize("import { poll } from './dist/index.js'; globalThis.poll = poll;");
// The peers the issue names for scale, measured here the same way (devDependencies of the peer benchmark).
const kySize = await bundleSize("import ky from 'ky'; globalThis.ky = ky;");
const queryCoreSize = await bundleSize("import { QueryClient, QueryObserver } from '@tanstack/query-core'; globalThis.q = [QueryClient, QueryObserver];");
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(`Bundle: import { poll } from 'pollite' = ${size} B min+gz (target <= 3584 B)`);
console.log(`  for scale, measured the same way: ky ${kb(kySize)}, @tanstack/query-core (QueryClient + QueryObserver) ${kb(queryCoreSize)}`);

server.send('stop');
