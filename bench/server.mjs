// What pollite/server's conditional answers cost the server: jsonWithETag
// (serialise + SHA-256 via Web Crypto + If-None-Match) against a bare JSON
// Response, for a job-sized body and a 45 KB body, answering 200 and 304.
// Rounds are interleaved and the best round is reported, because a shared
// machine's noise only ever adds time. `npm run build && node bench/server.mjs`
import { jsonWithETag } from '../dist/server/index.js';

const ROUNDS = 7;
const job = { id: '42', status: 'running', progress: 40, startedAt: '2026-11-29T19:00:00Z' };
const list = { items: Array.from({ length: 500 }, (_, i) => ({ id: i, name: `item ${i}`, done: i % 3 === 0, note: 'x'.repeat(40) })) };

/** Wall and CPU µs per op, 50 ops in flight at a time (a server's concurrency, not one await after another). */
async function timeOnce(fn, iterations) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < iterations; i += 50) await Promise.all(Array.from({ length: 50 }, fn));
  const used = process.cpuUsage(cpu);
  return { wall: ((performance.now() - start) * 1000) / iterations, cpu: (used.user + used.system) / iterations };
}

for (const [data, iterations] of [
  [job, 5000],
  [list, 500],
]) {
  const plain = new Request('http://bench.test/jobs/42');
  const etag = (await jsonWithETag(plain, data)).headers.get('etag');
  const conditional = new Request('http://bench.test/jobs/42', { headers: { 'if-none-match': etag } });
  const cases = {
    'new Response(JSON.stringify(data)), body read': async () =>
      (await new Response(JSON.stringify(data), { headers: { 'content-type': 'application/json' } })).arrayBuffer(),
    'jsonWithETag -> 200, body read': async () => (await jsonWithETag(plain, data)).arrayBuffer(),
    'jsonWithETag -> 304': () => jsonWithETag(conditional, data),
  };
  const best = Object.fromEntries(Object.keys(cases).map((name) => [name, { wall: Infinity, cpu: Infinity }]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, fn] of Object.entries(cases)) {
      const { wall, cpu } = await timeOnce(fn, iterations);
      best[name] = { wall: Math.min(best[name].wall, wall), cpu: Math.min(best[name].cpu, cpu) };
    }
  }
  console.log(`${JSON.stringify(data).length} B body (best of ${ROUNDS} rounds x ${iterations}, 50 in flight)`);
  for (const [name, { wall, cpu }] of Object.entries(best)) {
    console.log(`  ${name.padEnd(48)} ${wall.toFixed(1).padStart(8)} µs/op wall ${cpu.toFixed(1).padStart(8)} µs/op CPU`);
  }
}
