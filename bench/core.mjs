// `npm run bench`: what politeness costs the client.
//   1. CPU per poll iteration, relative to a bare fetch loop sending the
//      same requests (same If-None-Match, same JSON parsing, same 0 ms pause),
//      measured in alternating rounds in this run (target: <= 1.05x, issue 15).
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
import { mulberry32 } from '../dist/simulator/prng.js';
import { bareLoopOf, pollLoopOf } from './fixtures/loops.mjs';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const HEAP_ITERATIONS = Number(process.env.BENCH_HEAP_ITERATIONS ?? 100_000);

const server = fork(fileURLToPath(new URL('./fixtures/job-server.mjs', import.meta.url)), ['10']);
const { port } = await new Promise((resolve) => server.once('message', resolve));
const url = `http://127.0.0.1:${port}/jobs/1`;

/** The baseline, and poll sending the same requests (see bench/fixtures/loops.mjs). */
const bareLoop = bareLoopOf(url);
const pollLoop = pollLoopOf(url, poll);

const cpu = async (fn) => {
  // Each loop starts with an empty heap, so none pays for the garbage of the loop before it.
  globalThis.gc?.();
  const start = process.cpuUsage();
  const sent = await fn();
  const used = process.cpuUsage(start);
  // ms for ITERATIONS requests: a poll that sent a few more is scaled to the same count.
  return ((used.user + used.system) / 1000) * (ITERATIONS / sent);
};

// Warm both paths up (JIT, connection pool).
await bareLoop(500);
await pollLoop(500);

const bare = [];
const again = [];
const cancellable = [];
const sameHeaders = [];
const polite = [];
const loops = [
  [bare, () => bareLoop(ITERATIONS)],
  // The same bare loop once more, as a control: its ratio to the first is what this machine's noise alone gives.
  [again, () => bareLoop(ITERATIONS)],
  [cancellable, () => bareLoop(ITERATIONS, true)],
  [sameHeaders, () => bareLoop(ITERATIONS, false, true)],
  [polite, () => pollLoop(ITERATIONS)],
];
// Each round runs the loops in a fresh order (a seeded shuffle), so no loop
// always runs first or last, or always right after the same one: a turning
// order put the control right after the loop it is compared with in every
// round (and the last one of a fixed order paid for the others' JIT work).
const random = mulberry32(15);
for (let round = 0; round < ROUNDS; round += 1) {
  const order = loops.map((_, k) => k);
  for (let k = order.length - 1; k > 0; k -= 1) {
    const j = Math.floor(random() * (k + 1));
    [order[k], order[j]] = [order[j], order[k]];
  }
  for (const k of order) {
    const [into, loop] = loops[k];
    into[round] = await cpu(loop);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
// The ratio is taken within each round (its three loops ran back to back, so
// they met the same machine), then the median over rounds: a noisy minute
// moves one round's ratio, not the result.
const ratio = (of, to) => median(of.map((value, round) => value / to[round]));
/** The middle half of the per-round ratios: how far one round's ratio can be trusted. */
const spreadOf = (of, to) => {
  const sorted = of.map((value, round) => value / to[round]).sort((a, b) => a - b);
  return `${sorted[Math.floor(sorted.length / 4)].toFixed(3)}-${sorted[Math.floor((sorted.length * 3) / 4)].toFixed(3)}`;
};
const perBare = (median(bare) / ITERATIONS) * 1000;
const perPoll = (median(polite) / ITERATIONS) * 1000;
const perCancellable = (median(cancellable) / ITERATIONS) * 1000;
console.log(`CPU per iteration (median of ${ROUNDS} rounds x ${ITERATIONS}):`);
console.log(`  bare fetch loop   ${perBare.toFixed(1)} µs`);
console.log(`  + AbortSignal     ${perCancellable.toFixed(1)} µs`);
console.log(`  poll()            ${perPoll.toFixed(1)} µs`);
console.log(`  ratio             ${ratio(polite, bare).toFixed(3)}x vs bare (target <= 1.05x), ${ratio(polite, cancellable).toFixed(3)}x vs bare + AbortSignal (median of per-round ratios)`);
console.log(`  per-round ratios  ${polite.map((value, round) => (value / bare[round]).toFixed(3)).join(' ')} (middle half ${spreadOf(polite, bare)})`);
console.log(`  + Cache-Control   the bare loop with poll's headers: ${ratio(sameHeaders, bare).toFixed(3)}x vs bare (middle half ${spreadOf(sameHeaders, bare)}); poll ${ratio(polite, sameHeaders).toFixed(3)}x vs it`);
console.log(`  control           the bare loop run twice: ${ratio(again, bare).toFixed(3)}x, middle half ${spreadOf(again, bare)} (the noise floor of this run; a ratio within it is not a measured cost)`);

// pollite's own work: the same loops against a fetch that answers from memory.
const first = () => new Response('{"status":"running"}', { status: 200, headers: { etag: '"v"', 'content-type': 'application/json' } });
const notModified = new Response(null, { status: 304, headers: { etag: '"v"' } });
const inMemory = (n) => {
  let calls = 0;
  // A 304 for every conditional request; the last call's 200 ends a poll (isDone sees 2xx bodies only).
  return async () => (calls += 1) === 1 || calls > n ? first() : notModified;
};
const bareInMemory = (n) => bareLoop(n, false, false, inMemory(n));
async function pollInMemory(n) {
  // n requests: a 200, n - 2 304s, and the 200 that ends it.
  const answer = inMemory(n - 1);
  let bodies = 0;
  await poll(url, { interval: 0, fetch: answer, isDone: () => (bodies += 1) > 1 });
  return n;
}
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
  for (const [name, loop] of [['bare', bareInMemory], ['poll', pollInMemory]]) {
    const alloc = await allocated(loop);
    globalThis.gc?.();
    const start = process.cpuUsage();
    await loop(2000);
    const used = process.cpuUsage(start);
    memory[name].push([alloc, (used.user + used.system) / 2000]);
  }
}
const column = (rows, k) => median(rows.map((row) => row[k]));
console.log('Without the network (an in-memory fetch answering 304; median of 5 rounds):');
console.log(`  bare loop   ${column(memory.bare, 0).toFixed(0)} B allocated, ${column(memory.bare, 1).toFixed(1)} µs CPU per iteration`);
console.log(`  poll()      ${column(memory.poll, 0).toFixed(0)} B allocated, ${column(memory.poll, 1).toFixed(1)} µs CPU per iteration: +${(column(memory.poll, 0) - column(memory.bare, 0)).toFixed(0)} B, +${(column(memory.poll, 1) - column(memory.bare, 1)).toFixed(1)} µs`);

// The same count over the network, where fetch itself allocates: poll's share of a real
// iteration's garbage (the bare loop's count moved about 2% between runs, the CPU ratio 10-15%).
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
