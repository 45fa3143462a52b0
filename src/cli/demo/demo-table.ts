import { formatBytes } from '../format.js';
import type { PollerReport } from './request-log.js';

/**
 * The side-by-side table the demo ends with: one row per measure, one column
 * per poller, numbers right-aligned, plain text (it may end up in a log).
 */
export function demoTable(polite: PollerReport, naive: PollerReport, labels: readonly [string, string]): string {
  const seconds = (ms: number | undefined): string => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  const rows: Array<[string, string, string]> = [
    ['requests sent', String(polite.requests), String(naive.requests)],
    ['requests during the 503 outage', String(polite.duringOutage), String(naive.duringOutage)],
    ['requests that ignored Retry-After', String(polite.ignoredRetryAfter), String(naive.ignoredRetryAfter)],
    ['bytes received', formatBytes(polite.bytes), formatBytes(naive.bytes)],
    ['304 Not Modified answers', String(polite.notModified), String(naive.notModified)],
    ['saw the job finish after', seconds(polite.sawFinishAt), seconds(naive.sawFinishAt)],
  ];
  const widths = [
    Math.max(...rows.map((row) => row[0].length)),
    Math.max(labels[0].length, ...rows.map((row) => row[1].length)),
    Math.max(labels[1].length, ...rows.map((row) => row[2].length)),
  ] as const;
  const line = (cells: readonly [string, string, string]): string =>
    `${cells[0].padEnd(widths[0])}   ${cells[1].padStart(widths[1])}   ${cells[2].padStart(widths[2])}`;
  return [line(['', labels[0], labels[1]]), line(['-'.repeat(widths[0]), '-'.repeat(widths[1]), '-'.repeat(widths[2])]), ...rows.map(line)].join('\n');
}
