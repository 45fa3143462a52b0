import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_CHARACTERS, ensureBin, runCli } from './helpers/run-cli.js';

beforeAll(() => ensureBin());

/** The row of the demo's table that starts with `label`, as its two cells. */
const row = (stdout: string, label: string): [string, string] => {
  const line = stdout.split('\n').find((l) => l.startsWith(label));
  if (!line) throw new Error(`no row '${label}' in:\n${stdout}`);
  const cells = line.slice(label.length).trim().split(/\s{3,}/);
  return [cells[0]!, cells[1]!];
};
const numbers = (stdout: string, label: string): [number, number] => row(stdout, label).map(Number) as [number, number];
const seconds = (cell: string): number => Number(cell.replace(/ s$/, ''));

describe('pollite demo (what npm start runs)', () => {
  it('is what npm start runs, after the build', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe('npm run build && node dist/cli.js demo');
  });

  it('polls twin jobs through the rough patch and shows pollite sending fewer requests', { timeout: 90_000 }, async () => {
    const run = await runCli(['demo'], { timeoutMs: 80_000 });
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(CONTROL_CHARACTERS);
    const { stdout } = run;
    expect(stdout).toMatch(/^pollite demo: two identical 15 s jobs on a local demo API \(http:\/\/127\.0\.0\.1:\d+\),/);
    expect(stdout).toMatch(/\n\s+pollite {3}setInterval \+ fetch\n/);

    const [politeRequests, naiveRequests] = numbers(stdout, 'requests sent');
    expect(politeRequests).toBeGreaterThan(0);
    expect(politeRequests).toBeLessThan(naiveRequests);
    const [politeOutage, naiveOutage] = numbers(stdout, 'requests during the 503 outage');
    expect(politeOutage).toBeLessThan(naiveOutage);
    const [politeIgnored, naiveIgnored] = numbers(stdout, 'requests that ignored Retry-After');
    expect(politeIgnored).toBe(0);
    expect(naiveIgnored).toBeGreaterThan(0);
    const [politeNotModified, naiveNotModified] = numbers(stdout, '304 Not Modified answers');
    expect(politeNotModified).toBeGreaterThan(0);
    expect(naiveNotModified).toBe(0);
    const bytes = row(stdout, 'bytes received');
    expect(bytes).toEqual([expect.stringMatching(/^\d+(\.\d)? k?B$/), expect.stringMatching(/^\d+(\.\d)? k?B$/)]);
    const [politeFinish, naiveFinish] = row(stdout, 'saw the job finish after').map(seconds);
    expect(politeFinish).toBeGreaterThanOrEqual(15);
    expect(naiveFinish).toBeGreaterThanOrEqual(15);

    // The live part shows the rough patch as pollite met it.
    expect(stdout).toMatch(/\] 503 - retry in \d\.\d s \(Retry-After\)\n/);
    expect(stdout).toMatch(/\] 304 unchanged\n/);
    expect(stdout).toMatch(/\] 200 done 100%\n/);
    expect(stdout).toContain(`pollite sent ${naiveRequests - politeRequests} fewer requests`);
  });
});
