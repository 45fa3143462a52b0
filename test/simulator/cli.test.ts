import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { simulateCommand } from '../../src/cli/simulate/command.js';
import { simulate } from '../../src/simulator/index.js';

const sink = (): Writable & { text: () => string } => {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { text: () => chunks.join('') });
};

const run = async (...argv: string[]) => {
  const [stdout, stderr] = [sink(), sink()];
  const code = await simulateCommand(argv, { stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
};

const dir = mkdtempSync(join(tmpdir(), 'pollite-sim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('pollite simulate', () => {
  it('prints a table per strategy and writes an SVG chart with labelled axes', async () => {
    const svg = join(dir, 'outage.svg');
    const { code, stdout, stderr } = await run('--clients', '20', '--duration', '20s', '--interval', '1s', '--svg', svg);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^outage: 20 clients polling every 1 s for 20 virtual s \(seed 1\)/);
    expect(stdout).toMatch(/^naive +\d/m);
    expect(stdout).toMatch(/^exponential +\d/m);
    expect(stdout).toMatch(/^pollite +\d/m);
    expect(stderr).toContain(`wrote ${svg}`);
    const chart = readFileSync(svg, 'utf8');
    expect(chart).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(chart).toContain('virtual time (s)');
    expect(chart).toContain('requests per second');
    expect(chart.match(/<path d="M/g)).toHaveLength(3);
  });

  it('prints the same JSON as the programmatic API for the same seed, bit for bit, with the memory beside it', async () => {
    const a = await run('--scenario', 'job', '--clients', '10', '--duration', '15s', '--seed', '3', '--json');
    const b = await run('--scenario', 'job', '--clients', '10', '--duration', '15s', '--seed', '3', '--json');
    expect(a.code).toBe(0);
    const { memory, ...result } = JSON.parse(a.stdout);
    const { memory: _, ...again } = JSON.parse(b.stdout);
    expect(JSON.stringify(result, null, 2)).toBe(JSON.stringify(again, null, 2));
    const api = await simulate({ scenario: 'job', clients: 10, duration: 15_000, seed: 3 });
    expect(JSON.stringify(result, null, 2)).toBe(JSON.stringify(api, null, 2));
    expect(result).toMatchObject({ scenario: 'job', clients: 10, seed: 3, duration: 15_000 });
    expect(result.strategies.map((s: { strategy: string }) => s.strategy)).toEqual(['naive', 'exponential', 'pollite']);
    // Not seeded, so outside the result: the heap the run used, sampled while it ran.
    expect(Object.keys(memory)).toEqual(['peakHeapMiB', 'heapMiB']);
    expect(memory.heapMiB).toBeGreaterThan(0);
    expect(memory.peakHeapMiB).toBeGreaterThanOrEqual(memory.heapMiB);
  });

  it('reports the peak heap as well as the final one on stderr', async () => {
    const { code, stderr } = await run('--clients', '10', '--duration', '10s');
    expect(code).toBe(0);
    expect(stderr).toMatch(/^simulated in \d+\.\d s, heap \d+ MiB, peak heap \d+ MiB, max rss \d+ MiB$/m);
  });

  it('runs the AWS study for chosen client counts', async () => {
    const { code, stdout } = await run('--scenario', 'aws-occ', '--clients', '10,20', '--runs', '2', '--strategies', 'exponential,full-jitter');
    expect(code).toBe(0);
    expect(stdout).toContain('mean of 2 runs');
    expect(stdout).toMatch(/^clients +exponential calls +full-jitter calls +exponential ms +full-jitter ms$/m);
    expect(stdout).toMatch(/^10 +\d/m);
    expect(stdout).toMatch(/^20 +\d/m);
  });

  it.each([
    [['--scenario', 'flood'], "--scenario takes outage, outage-retry-after, rate-limit, job, aws-occ; got 'flood'"],
    [['--clients', 'many'], "--clients expects an integer >= 1, got 'many'"],
    [['--duration', 'soon'], "--duration 'soon' is not a duration: use a number with a unit: 500ms, 2s, 1m, 1h"],
    [['--interval', '5'], "--interval '5' has no unit: use a number with a unit: 500ms, 2s, 1m, 1h"],
    [['--strategies', 'pollite,yolo'], "--strategies takes naive, fetch-with-retry, exponential, pollite, equal-jitter, decorrelated-jitter; got 'yolo'"],
    [['--runs', '3'], '--runs applies to --scenario aws-occ only'],
    [['--interval', '0ms'], "--interval must be at least 1ms, got '0ms'"],
    [['--interval', '0'], "--interval must be at least 1ms, got '0'"],
    [['--interval', '0.4ms'], "--interval must be at least 1ms, got '0.4ms'"],
    [['--duration', '0s'], "--duration must be at least 1ms, got '0s'"],
    [['--clients', '99999999999'], "--clients takes at most 10,000,000, got '99999999999'"],
    [['--strategies', 'constructor'], "--strategies takes naive, fetch-with-retry, exponential, pollite, equal-jitter, decorrelated-jitter; got 'constructor'"],
    [['--strategies', 'toString'], "--strategies takes naive, fetch-with-retry, exponential, pollite, equal-jitter, decorrelated-jitter; got 'toString'"],
    [['--strategies', '__proto__'], "--strategies takes naive, fetch-with-retry, exponential, pollite, equal-jitter, decorrelated-jitter; got '__proto__'"],
    [['--strategies', ','], '--strategies names no strategy'],
    [['--scenario', 'constructor'], "--scenario takes outage, outage-retry-after, rate-limit, job, aws-occ; got 'constructor'"],
    [['--workers', '0'], "--workers expects an integer >= 1, got '0'"],
    [['--workers', 'many'], "--workers expects an integer >= 1, got 'many'"],
    [['--workers', '65'], "--workers takes at most 64, got '65'"],
    [['--scenario', 'aws-occ', '--workers', '2'], '--workers applies to fleet scenarios only, not aws-occ'],
    [['--frobnicate'], "Unknown option '--frobnicate'"],
  ])('%j is a usage error: exit 64, a message naming the option', async (argv, message) => {
    const { code, stdout, stderr } = await run(...argv);
    expect(code).toBe(64);
    expect(stdout).toBe('');
    expect(stderr).toContain(`pollite simulate: ${message}`);
  });

  it('prints help', async () => {
    const { code, stdout } = await run('--help');
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: pollite simulate [options]');
  });
});
