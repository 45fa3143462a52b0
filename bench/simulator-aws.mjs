// `npm run bench:aws`: the AWS "Exponential Backoff And Jitter" (2015) study,
// reproduced with pollite's own backoff functions (10..190 clients, 100 runs
// per point). Prints the table, each strategy at 100 clients against the
// original simulator's figures (within 3%?), the study's claims checked
// against it, and writes docs/aws-occ.svg and docs/aws-occ.json.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { snapshotDist } from './dist-snapshot.mjs';

const fromDist = snapshotDist();
const { awsOccStudy } = await import(fromDist('simulator/index.js'));
const { compareOccToOriginal } = await import(fromDist('simulator/aws-occ.js'));
const { renderChart } = await import(fromDist('simulator/chart.js'));
const { occPanels, occTable } = await import(fromDist('simulator/report.js'));

const docs = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs');
const runs = Number(process.env.AWS_RUNS ?? 100);
const cpu = process.cpuUsage();
const started = performance.now();
const points = awsOccStudy({ runs, seed: 1 });
const wall = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
console.log(occTable(points, runs));
console.log(`\n${points.length} points x ${runs} runs in ${wall.toFixed(1)} s wall, ${((used.user + used.system) / 1e6).toFixed(1)} s CPU`);

const at = (clients, strategy) => points.find((p) => p.clients === clients && p.strategy === strategy);
const [exp, full, equal, dec] = ['exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'].map((s) => at(100, s));
const claims = [
  ['full jitter more than halves the calls of exponential (100 clients)', full.calls < exp.calls / 2, `${full.calls.toFixed(0)} vs ${exp.calls.toFixed(0)}`],
  ['full jitter finishes far sooner than exponential', full.completion < exp.completion / 4, `${full.completion.toFixed(0)} ms vs ${exp.completion.toFixed(0)} ms`],
  ['full and equal jitter do about the same work (within 10%)', Math.abs(full.calls - equal.calls) < 0.1 * full.calls, `${full.calls.toFixed(0)} vs ${equal.calls.toFixed(0)}`],
  ['decorrelated jitter does more work than full', dec.calls > full.calls, `${dec.calls.toFixed(0)} vs ${full.calls.toFixed(0)}`],
  ['equal jitter takes notably longer than full', equal.completion > 1.2 * full.completion, `${equal.completion.toFixed(0)} ms vs ${full.completion.toFixed(0)} ms`],
  ['full jitter takes slightly more time than decorrelated', full.completion > dec.completion, `${full.completion.toFixed(0)} ms vs ${dec.completion.toFixed(0)} ms`],
];
console.log('\nThe study\'s claims at 100 clients:');
for (const [claim, holds, numbers] of claims) console.log(`  ${holds ? 'holds ' : 'FAILS '} ${claim}: ${numbers}`);

const comparison = compareOccToOriginal(points);
const missed = comparison.filter((c) => !c.within).map((c) => c.strategy);
console.log(`\nAgainst the original at 100 clients: ${missed.length === 0 ? 'every strategy within 3%' : `MISSED (over 3% off): ${missed.join(', ')}`}`);

writeFileSync(join(docs, 'aws-occ.json'), `${JSON.stringify({ runs, seed: 1, points, original: comparison }, null, 2)}\n`);
writeFileSync(
  join(docs, 'aws-occ.svg'),
  renderChart(occPanels(points), {
    width: 560,
    notes: [`AWS OCC model with pollite's exponential, fullJitter, equalJitter, decorrelatedJitter (the original's base 5 ms and cap 2000 ms: base 10 for pollite's ceilings, 5 for decorrelated jitter's floor); none = no wait. Mean of ${runs} runs per point.`],
  }),
);
console.error('wrote docs/aws-occ.svg and docs/aws-occ.json');
