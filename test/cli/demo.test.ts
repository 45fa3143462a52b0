import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runDemo } from '../../src/cli/demo/run-demo.js';
import { mulberry32 } from '../../src/simulator/prng.js';
import { VirtualClock } from '../../src/testing/index.js';
import { CONTROL_CHARACTERS, ensureBin, runCli } from './helpers/run-cli.js';

beforeAll(() => ensureBin());
afterEach(() => vi.restoreAllMocks());

/** The row of the demo's table that starts with `label`, as its two cells. */
const row = (stdout: string, label: string): [string, string] => {
  const line = stdout.split('\n').find((l) => l.startsWith(label));
  if (!line) throw new Error(`no row '${label}' in:\n${stdout}`);
  const cells = line.slice(label.length).trim().split(/\s{3,}/);
  return [cells[0]!, cells[1]!];
};

const START = Date.UTC(2026, 0, 1);

/** One run of `runDemo` in this process, on a virtual clock the demo steps itself, drawing from `random`. */
async function virtualDemo(random: () => number) {
  const clock = new VirtualClock({ start: START });
  let stdout = '';
  let stderr = '';
  const code = await runDemo(
    [],
    { stdout: { write: (chunk) => (stdout += String(chunk)) }, stderr: { write: (chunk) => (stderr += String(chunk)) }, env: {}, signal: new AbortController().signal },
    { clock, random },
  );
  // The port is the one thing the run does not decide.
  const port = /http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1];
  const unported = (text: string): string => text.replaceAll(`127.0.0.1:${port}`, '127.0.0.1:PORT');
  return { code, stdout: unported(stdout), stderr: unported(stderr), elapsed: clock.now() - START, pending: clock.pending() };
}

describe('pollite demo on a virtual clock', () => {
  it('shows the same run for seed 19, to the request and the byte, whatever the machine', { timeout: 30_000 }, async () => {
    const run = await virtualDemo(mulberry32(19));
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'pollite demo: two identical 15 s jobs on a local demo API (http://127.0.0.1:PORT),',
        'each through the same rough patch: slow answers 1.5-3.5 s, 503 + Retry-After 4.0-8.0 s, a 429 8.5-9.0 s, 500s 10.0-11.5 s, unchanged data between 20% steps.',
        'pollite follows job 1 (below); a setInterval + fetch poller follows job 2; both every 500 ms.',
        '',
        '[  0.0s] 200 queued 0%',
        '[  0.5s] 304 unchanged',
        '[  1.0s] 200 running 0%',
        // Sent at 1.5 s into the slow phase, answered 1.5 s later.
        '[  3.0s] 200 running 20%',
        '[  3.5s] 304 unchanged',
        // Retry-After: 3 is the floor; the spread above it is the seed's.
        '[  4.0s] 503 - retry in 3.0 s (Retry-After)',
        '[  7.0s] 503 - retry in 3.2 s (Retry-After)',
        '[ 10.2s] 500 - retry in 2.1 s (backoff)',
        '[ 12.3s] 200 running 80%',
        '[ 12.8s] 304 unchanged',
        '[ 15.3s] 200 done 100%',
        'done: http://127.0.0.1:PORT/jobs/1 (status=done) after 15.3s',
        '',
        '                                    pollite   setInterval + fetch',
        '---------------------------------   -------   -------------------',
        'requests sent                            15                    30',
        'requests during the 503 outage            2                     8',
        'requests that ignored Retry-After         0                    12',
        'bytes received                        264 B                 989 B',
        '304 Not Modified answers                  7                     0',
        'saw the job finish after             15.3 s                15.0 s',
        '',
        'pollite sent 15 fewer requests (50% fewer) for the same job, and never one while told to wait.',
        '',
      ].join('\n'),
    );
    expect(run.stderr).toBe('pollite: 15 requests, 7 × 304, 3 retries, 264 B received in 15.3s\n');
    expect(run.stdout + run.stderr).not.toMatch(CONTROL_CHARACTERS);
    // The demo ends when pollite sees the job done (the naive poller saw it first): no grace period waited out.
    expect(run.elapsed).toBe(15_301);
    // Every timer of both pollers, the API and the demo was cleared or fired.
    expect(run.pending).toBe(0);
  });

  it('runs the same twice with the same seed', { timeout: 30_000 }, async () => {
    const [first, second] = [await virtualDemo(mulberry32(19)), await virtualDemo(mulberry32(19))];
    expect(second).toEqual(first);
  });

  it('takes its randomness from `random`: with 0, no spread above Retry-After and the least backoff', { timeout: 30_000 }, async () => {
    vi.spyOn(Math, 'random');
    const run = await virtualDemo(() => 0);
    expect(run.stdout.split('\n').filter((line) => line.startsWith('['))).toEqual([
      '[  0.0s] 200 queued 0%',
      '[  0.5s] 304 unchanged',
      '[  1.0s] 200 running 0%',
      '[  3.0s] 200 running 20%',
      '[  3.5s] 304 unchanged',
      // Retry-After: 3 to the millisecond, twice (the display shows a repeated answer once).
      '[  4.0s] 503 - retry in 3.0 s (Retry-After)',
      // poll's own backoff at its lowest: 1.5 times max(interval, 1 s).
      '[ 10.0s] 500 - retry in 1.5 s (backoff)',
      '[ 11.5s] 200 running 60%',
      '[ 12.0s] 200 running 80%',
      '[ 12.5s] 304 unchanged',
      '[ 15.0s] 200 done 100%',
    ]);
    expect(row(run.stdout, 'requests sent')).toEqual(['16', '30']);
    expect(Math.random).not.toHaveBeenCalled();
  });
});

describe('pollite demo (what npm start runs, on the wall clock)', () => {
  it('is what npm start runs, after the build', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe('npm run build && node dist/cli.js demo');
  });

  // How many requests a wall-clock run sends depends on the machine's timing; the run on the virtual clock
  // above pins them. Here: the bin's wiring, and what holds on any machine by design.
  it('polls twin jobs through the rough patch and prints the comparison', { timeout: 90_000 }, async () => {
    const run = await runCli(['demo'], { timeoutMs: 80_000 });
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(CONTROL_CHARACTERS);
    const { stdout } = run;
    expect(stdout).toMatch(/^pollite demo: two identical 15 s jobs on a local demo API \(http:\/\/127\.0\.0\.1:\d+\),/);
    expect(stdout).toMatch(/\n\s+pollite {3}setInterval \+ fetch\n/);
    for (const label of ['requests sent', 'requests during the 503 outage', 'requests that ignored Retry-After', '304 Not Modified answers']) {
      expect(row(stdout, label)).toEqual([expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)]);
    }
    // pollite never sends while told to wait; the naive poller never sends If-None-Match.
    expect(row(stdout, 'requests that ignored Retry-After')[0]).toBe('0');
    expect(row(stdout, '304 Not Modified answers')[1]).toBe('0');
    expect(row(stdout, 'bytes received')).toEqual([expect.stringMatching(/^\d+(\.\d)? k?B$/), expect.stringMatching(/^\d+(\.\d)? k?B$/)]);
    expect(row(stdout, 'saw the job finish after')).toEqual([expect.stringMatching(/^\d+\.\d s$/), expect.stringMatching(/^\d+\.\d s$/)]);
    expect(stdout).toMatch(/\] 503 - retry in \d\.\d s \(Retry-After\)\n/);
    expect(stdout).toMatch(/\] 200 done 100%\n/);
  });
});
