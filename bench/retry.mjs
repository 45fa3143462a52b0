// `npm run bench:retry`: what retrying costs the client, as ratios against
// baselines measured in alternating rounds of this same run.
//   1. fetchWithRetry on the success path vs a bare fetch (target: <= 1.10x).
//   2. fetchWithRetry through one 503 vs a hand-written retry loop doing the
//      same (fetch, cancel the body, wait 0 ms, fetch again).
//   3. retry(fn) around a function that does no I/O vs calling it directly,
//      and vs p-retry 7 (same retries, no wait needed).
//   4. fetchWithRetry's own CPU: around a fetch that answers from memory.
//   5. 100,000 retry() calls sharing one AbortSignal: heap growth and the
//      listeners left on the signal (target: 0).
// The server runs in a child process so only the client's CPU is counted.
import { fork } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import pRetry from 'p-retry';
import { constant, fetchWithRetry, retry } from '../dist/index.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const CPU_CALLS = Number(process.env.BENCH_CPU_CALLS ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const HEAP_CALLS = Number(process.env.BENCH_HEAP_CALLS ?? 100_000);

const server = fork(fileURLToPath(new URL('./fixtures/retry-server.mjs', import.meta.url)));
const { port } = await new Promise((resolve) => server.once('message', resolve));
const base = `http://127.0.0.1:${port}`;
let nextId = 0;

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));
const cpu = async (fn) => {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000; // ms
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs each contender once per round, alternating, and prints µs per call and ratios to the first. */
async function compare(title, calls, contenders) {
  for (const [, run] of contenders) await run(Math.min(calls, 500)); // warm up JIT and connection pool
  const samples = contenders.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, [, run]] of contenders.entries()) samples[i].push(await cpu(() => run(calls)));
  }
  const perCall = samples.map((s) => (median(s) / calls) * 1000);
  console.log(`${title} (CPU per call, median of ${ROUNDS} rounds x ${calls}):`);
  for (const [i, [name]] of contenders.entries()) {
    const ratio = i === 0 ? 'baseline' : `${(perCall[i] / perCall[0]).toFixed(3)}x`;
    console.log(`  ${name.padEnd(34)} ${perCall[i].toFixed(2).padStart(8)} µs   ${ratio}`);
  }
}

await compare('1. Success path', CALLS, [
  ['fetch + json()', async (n) => { for (let i = 0; i < n; i++) await (await fetch(`${base}/ok`)).json(); }],
  ['fetch + AbortSignal + json()', async (n) => { for (let i = 0; i < n; i++) await (await fetch(`${base}/ok`, { signal: new AbortController().signal })).json(); }],
  ['fetchWithRetry + json()', async (n) => { for (let i = 0; i < n; i++) await (await fetchWithRetry(`${base}/ok`)).json(); }],
]);

const handWritten = async (url, signal) => {
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(url, { signal });
    if (response.status !== 503 || attempt === 3) return response;
    await response.body?.cancel();
    await pause();
  }
};
const noWait = { retries: 3, backoff: constant(0) };
await compare('2. One 503, then 200', CALLS, [
  ['hand-written loop + json()', async (n) => { for (let i = 0; i < n; i++) await (await handWritten(`${base}/flaky?id=${nextId++}`)).json(); }],
  ['hand-written + AbortSignal', async (n) => { for (let i = 0; i < n; i++) await (await handWritten(`${base}/flaky?id=${nextId++}`, new AbortController().signal)).json(); }],
  ['fetchWithRetry + json()', async (n) => { for (let i = 0; i < n; i++) await (await fetchWithRetry(`${base}/flaky?id=${nextId++}`, { retry: noWait })).json(); }],
]);

const work = async () => 42;
await compare('3. A function with no I/O that succeeds', CPU_CALLS, [
  ['await fn()', async (n) => { for (let i = 0; i < n; i++) await work(); }],
  ['await retry(fn)', async (n) => { for (let i = 0; i < n; i++) await retry(work); }],
  ['await pRetry(fn) (p-retry 7)', async (n) => { for (let i = 0; i < n; i++) await pRetry(work); }],
]);

// fetchWithRetry's own CPU, without the network's noise: a fetch that answers from memory.
const inMemory = async () => new Response(null, { status: 204 });
await compare('4. fetchWithRetry around a fetch that answers from memory', CPU_CALLS / 5, [
  ['await fetch()', async (n) => { for (let i = 0; i < n; i++) await inMemory(`${base}/ok`, {}); }],
  ['await fetchWithRetry()', async (n) => { for (let i = 0; i < n; i++) await fetchWithRetry(`${base}/ok`, { retry: { fetch: inMemory } }); }],
  ['  with cooldown: false', async (n) => { for (let i = 0; i < n; i++) await fetchWithRetry(`${base}/ok`, { retry: { fetch: inMemory, cooldown: false } }); }],
]);

const controller = new AbortController();
const heap = () => {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};
const shared = { signal: controller.signal, timeout: 60_000, attemptTimeout: 60_000 };
for (let i = 0; i < 10_000; i++) await retry(work, shared);
const before = heap();
for (let i = 0; i < HEAP_CALLS; i++) await retry(work, shared);
const after = heap();
console.log(`5. ${HEAP_CALLS.toLocaleString('en')} retry() calls sharing one AbortSignal, with timeout and attemptTimeout${globalThis.gc ? '' : ' (run with --expose-gc for exact figures)'}:`);
console.log(`  heap growth ${(after - before).toFixed(2)} MB, listeners left on the signal: ${getEventListeners(controller.signal, 'abort').length}`);

server.send('stop');
