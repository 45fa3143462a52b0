import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FC_TIME_SHARE, propertyTimeLimit } from '../property/runs.js';

// The rules that keep the suite from passing by accident, checked on the
// scripts themselves. No real suite is launched: every case makes a tool
// missing (a bogus path, or POLLITE_TOOLS_ABSENT, which can only make a
// lookup fail) and asserts that the script stops before starting anything.

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Judged {
  passed: boolean;
  skippedCases: string[];
  lines: string[];
}
const { judgeReport } = (await import(new URL('../runtimes/verdict.mjs', import.meta.url).href)) as {
  judgeReport(report: unknown, options: { strict: boolean }): Judged;
};

const RELAXING = ['CI', 'POLLITE_REQUIRE_TOOLS', 'RUNTIMES_REQUIRE_ALL', 'POLLITE_TOOLS_ABSENT', 'CHROMIUM_PATH'];

/** Runs a script with the caller's environment less the variables these rules read, plus `env`. */
function run(script: string, args: string[], env: Record<string, string>): { code: number | null; output: string; ms: number } {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !RELAXING.includes(key)));
  const started = Date.now();
  const result = spawnSync(process.execPath, [join(root, script), ...args], { cwd: root, env: { ...base, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}`, ms: Date.now() - started };
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  vi.restoreAllMocks();
});

describe('under CI a missing tool fails, with the reason', () => {
  it('find-tools --require: a bogus CHROMIUM_PATH exits 1 and says where it looked', () => {
    const { code, output } = run('scripts/find-tools.mjs', ['--require', 'chromium'], { CI: 'true', CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(code).toBe(1);
    expect(output).toContain('/nonexistent/chromium: not there');
    expect(output).toContain('apt-get install chromium');
  });

  it('find-tools --require: a stub that exits 0 is not a Chromium', () => {
    const { code, output } = run('scripts/find-tools.mjs', ['--require', 'chromium'], { CHROMIUM_PATH: '/bin/true' });
    expect(code).toBe(1);
    expect(output).toMatch(/\/bin\/true --version` exited 0 without/);
  });

  it('POLLITE_TOOLS_ABSENT makes a lookup fail, for every tool', () => {
    const { code, output } = run('scripts/find-tools.mjs', ['--require', 'all'], { POLLITE_TOOLS_ABSENT: 'chromium,redis-server,nginx,script,bun,deno,workerd' });
    expect(code).toBe(1);
    expect(output).toContain('7 of 7 required tools missing');
  });

  it('test-browser.mjs: CI=true with no Chromium exits 1 before vitest starts', () => {
    const { code, output } = run('scripts/test-browser.mjs', [], { CI: 'true', CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(code).toBe(1);
    expect(output).toContain('FAILED: the');
    expect(output).toContain('/nonexistent/chromium: not there');
    expect(output).not.toContain('Test Files');
  });

  it('test-browser.mjs: CI=1 counts as CI too', () => {
    const { code } = run('scripts/test-browser.mjs', [], { CI: '1', POLLITE_TOOLS_ABSENT: 'chromium' });
    expect(code).toBe(1);
  });

  it('test-runtimes.mjs: CI=true wins over RUNTIMES_REQUIRE_ALL=0 and POLLITE_REQUIRE_TOOLS=0, and fails before any runtime runs', () => {
    const { code, output } = run('scripts/test-runtimes.mjs', ['node', 'bun'], { CI: 'true', RUNTIMES_REQUIRE_ALL: '0', POLLITE_REQUIRE_TOOLS: '0', POLLITE_TOOLS_ABSENT: 'bun' });
    expect(code).toBe(1);
    expect(output).toContain('RUNTIMES_REQUIRE_ALL=0 is ignored under CI');
    expect(output).toContain('runtime bun is missing');
    expect(output).toContain('FAILED before it started');
    expect(output).not.toMatch(/^node \(/m);
  });

  it('test-runtimes.mjs: Chromium is no exception under CI', () => {
    const { code, output } = run('scripts/test-runtimes.mjs', ['chromium'], { CI: 'true', CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(code).toBe(1);
    expect(output).toContain('runtime chromium is missing');
  });

  it('elsewhere the same absence is a loud skip, not a failure', () => {
    const { code, output } = run('scripts/test-browser.mjs', [], { CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(code).toBe(0);
    expect(output).toMatch(/\*\*\* SKIPPED the \d+ browser test files: .*\/nonexistent\/chromium: not there/);
  });

  it('POLLITE_REQUIRE_TOOLS=1 applies the CI rule locally', () => {
    const { code } = run('scripts/test-browser.mjs', [], { POLLITE_REQUIRE_TOOLS: '1', POLLITE_TOOLS_ABSENT: 'chromium' });
    expect(code).toBe(1);
  });
});

describe('an empty suite fails', () => {
  it('test-browser.mjs fails on a folder with no browser test, even outside CI', () => {
    const empty = mkdtempSync(join(tmpdir(), 'pollite-empty-'));
    try {
      const { code, output } = run('scripts/test-browser.mjs', ['--dir', empty], {});
      expect(code).toBe(1);
      expect(output).toContain('an empty browser suite proves nothing');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('test-browser.mjs refuses --dir under CI', () => {
    const { code, output } = run('scripts/test-browser.mjs', ['--dir', tmpdir()], { CI: 'true' });
    expect(code).toBe(1);
    expect(output).toContain('refused under CI: CI runs the whole of test/browser');
  });

  it('test-browser.mjs refuses file filters under CI: CI runs every browser test', () => {
    const { code, output } = run('scripts/test-browser.mjs', ['test/browser/cors'], { CI: 'true' });
    expect(code).toBe(1);
    expect(output).toContain('test/browser/cors: refused under CI');
  });

  it('a runtime whose smoke suite ran no case fails', () => {
    expect(judgeReport({ runtime: 'bun', results: [] }, { strict: false }).passed).toBe(false);
    expect(judgeReport({ runtime: 'bun', crashed: 'exit 1' }, { strict: false }).passed).toBe(false);
  });
});

describe('a skipped runtime case is not a pass', () => {
  const report = {
    runtime: 'deno',
    results: [
      { name: 'poll', ok: true, detail: '4 requests' },
      { name: 'fetchWithRetry', ok: true, detail: 'SKIP: not exported' },
    ],
  };

  it('under CI it fails the runtime', () => {
    const judged = judgeReport(report, { strict: true });
    expect(judged.passed).toBe(false);
    expect(judged.lines[1]).toBe('  ✗ fetchWithRetry: SKIP: not exported (under CI a skipped case is a failure)');
  });

  it('elsewhere it is named as skipped', () => {
    const judged = judgeReport(report, { strict: false });
    expect(judged).toMatchObject({ passed: true, skippedCases: ['fetchWithRetry'] });
    expect(judged.lines[1]).toBe('  - fetchWithRetry: SKIP: not exported');
  });
});

describe('requireOrSkip, for the tests', () => {
  it('throws under CI with the reason, so the test file fails', async () => {
    vi.stubEnv('CI', 'true');
    vi.stubEnv('POLLITE_TOOLS_ABSENT', 'nginx');
    const { requireOrSkip } = await import('../helpers/tools.js');
    expect(() => requireOrSkip('nginx', 'the interop tests')).toThrow(/^the interop tests cannot run: nginx is needed by .*declared absent by POLLITE_TOOLS_ABSENT\. Under CI a missing tool fails the run/);
  });

  it('CI=true wins over POLLITE_REQUIRE_TOOLS=0', async () => {
    vi.stubEnv('CI', 'true');
    vi.stubEnv('POLLITE_REQUIRE_TOOLS', '0');
    vi.stubEnv('POLLITE_TOOLS_ABSENT', 'nginx');
    const { requireOrSkip } = await import('../helpers/tools.js');
    expect(() => requireOrSkip('nginx', 'the interop tests')).toThrow();
  });

  it('elsewhere returns false and warns loudly', async () => {
    vi.stubEnv('CI', '');
    vi.stubEnv('POLLITE_REQUIRE_TOOLS', '');
    vi.stubEnv('RUNTIMES_REQUIRE_ALL', '');
    vi.stubEnv('POLLITE_TOOLS_ABSENT', 'nginx');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { requireOrSkip } = await import('../helpers/tools.js');
    expect(requireOrSkip('nginx', 'the interop tests')).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/\*\*\* SKIPPED the interop tests: nginx is needed by/));
  });
});

describe('property runs are floored under CI', () => {
  it('FC_RUNS=5 still runs 1,000 cases under CI', async () => {
    vi.stubEnv('CI', 'true');
    vi.stubEnv('FC_RUNS', '5');
    const { FC_RUNS } = await import('../property/runs.js');
    expect(FC_RUNS).toBe(1000);
  });

  it('FC_RUNS=5 lowers them elsewhere, and may raise them anywhere', async () => {
    vi.stubEnv('CI', 'false');
    vi.stubEnv('FC_RUNS', '5');
    expect((await import('../property/runs.js')).FC_RUNS).toBe(5);
    vi.resetModules();
    vi.stubEnv('CI', 'true');
    vi.stubEnv('FC_RUNS', '3000');
    expect((await import('../property/runs.js')).FC_RUNS).toBe(3000);
  });

  it('the slow properties (real servers, the bin) run their own count under CI, whatever FC_RUNS says', async () => {
    vi.stubEnv('CI', '1');
    vi.stubEnv('FC_RUNS', '5');
    expect((await import('../property/runs.js')).slowRuns(40)).toBe(40);
    vi.resetModules();
    vi.stubEnv('CI', '');
    expect((await import('../property/runs.js')).slowRuns(40)).toBe(5);
    vi.resetModules();
    vi.stubEnv('FC_RUNS', '3000');
    expect((await import('../property/runs.js')).slowRuns(40)).toBe(40);
  });
});

/** Every test source, with its path from the root. */
const testSources = (): Array<{ path: string; text: string }> =>
  readdirSync(join(root, 'test'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx|mts)$/.test(entry.name) && !entry.parentPath.includes('node_modules'))
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return { path: path.slice(root.length), text: readFileSync(path, 'utf8') };
    });

describe('a property never outlasts its test, and an interrupted one fails', () => {
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  it('may spend 80% of the running test\'s timeout', { timeout: 5000 }, () => {
    expect(FC_TIME_SHARE).toBe(0.8);
    expect(propertyTimeLimit()).toBe(4000);
    expect([propertyTimeLimit(300_000), propertyTimeLimit(0), propertyTimeLimit(Infinity)]).toEqual([240_000, 240_000, 240_000]);
  });

  it('fails a property still running at the limit, rather than passing it on fewer runs', { timeout: 1000 }, async () => {
    let runs = 0;
    const started = performance.now();
    const outcome = fc.assert(
      fc.asyncProperty(fc.nat(), async () => {
        runs += 1;
        await sleep(20);
      }),
      { numRuns: 1000 },
    );
    await expect(outcome).rejects.toThrow(/interrupted/i);
    expect(performance.now() - started).toBeGreaterThanOrEqual(800);
    expect(runs).toBeLessThan(1000);
  });

  it('ends a shrink that would outlast the test, reporting the counterexample it got to', { timeout: 2000 }, async () => {
    const started = performance.now();
    const outcome = fc.assert(
      // Fails for any array summing past 1,000; each case costs 25 ms, so shrinking a long array takes far longer than the test has.
      fc.asyncProperty(fc.array(fc.nat({ max: 1000 }), { minLength: 50, maxLength: 200 }), async (values) => {
        await sleep(25);
        return values.reduce((sum, value) => sum + value, 0) <= 1000;
      }),
      { numRuns: 1000, seed: 19 },
    );
    // Found at once; shrunk until the limit (1.6 s), then reported as it stood, before vitest's timeout.
    await expect(outcome).rejects.toThrow(/^Property failed after 1 tests\n[\s\S]*Counterexample: \[\[[\d,]+\]\]\nShrunk [1-9]\d* time/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1600);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('every file with a property imports the shared settings, and none opts out of them', () => {
    const self = fileURLToPath(import.meta.url).slice(root.length);
    const properties = testSources().filter((file) => file.path !== self && /\bfc\.(assert|check)\(/.test(file.text));
    expect(properties.length).toBeGreaterThan(5);
    for (const file of properties) {
      expect(file.text, `${file.path} runs properties without test/property/runs.ts`).toMatch(/from '(\.\.\/)+property\/runs\.js'|from '\.\/runs\.js'/);
      // Global plugins off, a time limit that passes when it interrupts, or the time-limit plugin with its own settings.
      expect(file.text, `${file.path} weakens the time limit`).not.toMatch(/noGlobalPlugins|interruptAfterTimeLimit|skipAllAfterTimeLimit|markInterruptAsFailure|failOnInterrupt/);
    }
  });
});

describe('.ci/run', () => {
  it('requires every tool, after installing the Debian packages that find-tools names', () => {
    const script = readFileSync(join(root, '.ci/run'), 'utf8');
    expect(script).toContain('export CI=true');
    expect(script).toContain('node scripts/find-tools.mjs --debian-packages all');
    expect(script).toMatch(/node scripts\/find-tools\.mjs --require all\nnpm test\n$/);
    expect(script).not.toMatch(/REQUIRE_ALL|FC_RUNS=/);
  });
});
