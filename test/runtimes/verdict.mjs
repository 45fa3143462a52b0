// How scripts/test-runtimes.mjs judges one runtime's smoke report. Kept apart
// so that test/ci/rules.test.ts can check the rules without running a runtime.

/**
 * `report`: `{ crashed }` or `{ results: [{ name, ok, detail }] }` from
 * smoke.js. A case whose detail starts with SKIP did not pass: under CI
 * (`strict`) it fails the runtime, elsewhere it is named as skipped. A
 * report with no cases fails: a smoke suite that ran nothing proved nothing.
 * Returns `{ passed, skippedCases, lines }`, the lines to print.
 */
export function judgeReport(report, { strict }) {
  if (report.crashed) return { passed: false, skippedCases: [], lines: [`  CRASHED: ${report.crashed}`] };
  const results = Array.isArray(report.results) ? report.results : [];
  if (results.length === 0) return { passed: false, skippedCases: [], lines: ['  FAILED: the smoke suite ran no case'] };
  const skippedCases = results.filter((r) => r.ok && /^SKIP\b/.test(r.detail ?? '')).map((r) => r.name);
  const lines = results.map((r) => {
    const skipped = skippedCases.includes(r.name);
    const mark = !r.ok || (skipped && strict) ? '✗' : skipped ? '-' : '✓';
    return `  ${mark} ${r.name}${r.detail ? `: ${r.detail}` : ''}${skipped && strict ? ' (under CI a skipped case is a failure)' : ''}`;
  });
  const passed = results.every((r) => r.ok) && !(strict && skippedCases.length > 0);
  return { passed, skippedCases, lines };
}
