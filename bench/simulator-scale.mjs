// `npm run bench:simulator`: can the simulator run an internet-scale fleet on
// a laptop? 100,000 clients through 5 virtual minutes of the outage scenario
// (pollite's real poll, real Response objects), one strategy at a time.
// Prints wall and CPU time, requests simulated per CPU second, and memory.
// Run by `npm run bench:simulator` with V8's allocation-site pretenuring off, as `pollite simulate` runs.
//   SIM_CLIENTS (100000), SIM_INTERVAL ms (30000), SIM_STRATEGIES (pollite),
//   SIM_SCENARIO (outage), SIM_DURATION ms (300000), SIM_WORKERS (this machine's cores)
import { availableParallelism } from 'node:os';
import { snapshotDist } from './dist-snapshot.mjs';

const { simulate } = await import(snapshotDist()('simulator/index.js'));

const clients = Number(process.env.SIM_CLIENTS ?? 100_000);
const interval = Number(process.env.SIM_INTERVAL ?? 30_000);
const duration = Number(process.env.SIM_DURATION ?? 300_000);
const scenario = process.env.SIM_SCENARIO ?? 'outage';
const strategies = (process.env.SIM_STRATEGIES ?? 'pollite').split(',');
const workers = Number(process.env.SIM_WORKERS ?? availableParallelism());

const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
let peakHeap = 0;
const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 50);

console.log(`${clients.toLocaleString('en-US')} clients, ${scenario}, every ${interval / 1000} s, ${duration / 1000} virtual s, ${workers} worker thread${workers === 1 ? '' : 's'}, node ${process.version}`);
for (const strategy of strategies) {
  peakHeap = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await simulate({ clients, scenario, interval, duration, strategies: [strategy], seed: 1, workers });
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const [s] = result.strategies;
  console.log(
    [
      strategy.padEnd(12),
      `wall ${wall.toFixed(1)} s`,
      `cpu ${cpuSeconds.toFixed(1)} s`,
      `${s.requests.toLocaleString('en-US')} requests`,
      `${Math.round(s.requests / cpuSeconds).toLocaleString('en-US')} req per cpu-s`,
      `peak heap ${mib(peakHeap)} (this thread)`,
      `max rss ${mib(process.resourceUsage().maxRSS * 1024)}`,
      `target <= 20 s (issue 15): ${wall <= 20 ? 'met' : 'NOT MET'}`,
    ].join(' | '),
  );
}
clearInterval(sampler);
