import { compareOccToOriginal, OCC_TOLERANCE, type OccPoint } from './aws-occ.js';
import type { ChartPanel } from './chart.js';
import type { SimulationResult } from './simulate-options.js';

const fmt = (n: number | null | undefined, unit = ''): string =>
  n === null || n === undefined ? '-' : `${Math.round(n).toLocaleString('en-US')}${unit}`;
const seconds = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);

/** Lays rows out as an aligned plain-text table (first column left, the rest right). */
export function textTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  return rows
    .map((row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '))
    .join('\n');
}

/** The metrics of each strategy as a table. */
export function simulationTable(result: SimulationResult): string {
  const header = [
    'strategy',
    'requests',
    'in outage',
    'peak req/s after',
    '99% healthy after',
    'ignored Retry-After',
    '429/503',
    'seen p50',
    'seen p99',
    'gave up',
  ];
  const rows = result.strategies.map((s) => [
    s.strategy,
    fmt(s.requests),
    fmt(s.requestsDuringOutage),
    fmt(s.peakRpsAfterRecovery),
    seconds(s.timeTo99Healthy),
    fmt(s.ignoredRetryAfter),
    fmt((s.statuses[429] ?? 0) + (s.statuses[503] ?? 0)),
    seconds(s.seen?.p50),
    seconds(s.seen?.p99),
    fmt(s.gaveUp),
  ]);
  return [
    `${result.scenario}: ${result.clients.toLocaleString('en-US')} clients polling every ${result.interval / 1000} s for ${result.duration / 1000} virtual s (seed ${result.seed})`,
    result.description,
    '',
    textTable([header, ...rows]),
  ].join('\n');
}

/** Requests per second over time, a line per strategy. */
export function simulationPanel(result: SimulationResult): ChartPanel {
  return {
    title: `${result.scenario}: ${result.clients.toLocaleString('en-US')} clients, requests per second at the server`,
    xLabel: 'virtual time (s)',
    yLabel: 'requests per second',
    series: result.strategies.map((s) => ({ name: s.strategy, points: s.rps.map((count, second) => [second, count]) })),
    spans: (result.server.outages ?? []).map((o) => ({ from: o.start / 1000, to: o.end / 1000, label: 'outage' })),
  };
}

/** The study's table: mean calls and completion time per client count and strategy. */
export function occTable(points: OccPoint[], runs: number): string {
  const strategies = [...new Set(points.map((p) => p.strategy))];
  const counts = [...new Set(points.map((p) => p.clients))];
  const at = (clients: number, strategy: string) => points.find((p) => p.clients === clients && p.strategy === strategy)!;
  const header = ['clients', ...strategies.map((s) => `${s} calls`), ...strategies.map((s) => `${s} ms`)];
  const rows = counts.map((n) => [
    String(n),
    ...strategies.map((s) => fmt(at(n, s).calls)),
    ...strategies.map((s) => fmt(at(n, s).completion)),
  ]);
  const lines = [
    `AWS "Exponential Backoff And Jitter" (2015) model: OCC writes, hops |N(10, 2)| ms, the original's base 5 and cap 2000; mean of ${runs} runs`,
    '',
    textTable([header, ...rows]),
  ];
  const comparison = occComparisonTable(points);
  return (comparison ? [...lines, '', comparison] : lines).join('\n');
}

const percent = (off: number): string => {
  const text = (off * 100).toFixed(1);
  return text === '0.0' || text === '-0.0' ? '0.0%' : `${off > 0 ? '+' : ''}${text}%`;
};

/** The study at 100 clients against the original simulator's figures, with a verdict per strategy; '' without 100 clients in the sweep. */
export function occComparisonTable(points: readonly OccPoint[]): string {
  const comparison = compareOccToOriginal(points);
  if (comparison.length === 0) return '';
  const header = ['at 100 clients', 'calls', 'original', 'off', 'ms', 'original', 'off', `within ${OCC_TOLERANCE * 100}%`];
  const rows = comparison.map((c) => [
    c.strategy,
    fmt(c.calls),
    fmt(c.originalCalls),
    percent(c.callsOff),
    fmt(c.completion),
    fmt(c.originalCompletion),
    percent(c.completionOff),
    c.within ? 'yes' : 'NO',
  ]);
  return ['Against the original (aws-samples/aws-arch-backoff-simulator, mean of 100 runs):', '', textTable([header, ...rows])].join('\n');
}

/** The study as two panels: work (calls) and time to completion. */
export function occPanels(points: OccPoint[]): ChartPanel[] {
  const strategies = [...new Set(points.map((p) => p.strategy))];
  const series = (pick: (p: OccPoint) => number) =>
    strategies.map((s) => ({ name: s, points: points.filter((p) => p.strategy === s).map((p): [number, number] => [p.clients, pick(p)]) }));
  return [
    { title: 'Work: writes that reach the server', xLabel: 'clients', yLabel: 'calls (mean)', series: series((p) => p.calls) },
    {
      title: 'Time: until the last client succeeds',
      xLabel: 'clients',
      yLabel: 'completion time, ms (mean, log scale)',
      yScale: 'log',
      series: series((p) => p.completion),
    },
  ];
}
