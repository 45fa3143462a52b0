// The runtime matrix: runs test/runtimes/smoke.js against the BUILT package
// (dist/) in Node, Bun, Deno, workerd (through miniflare) and Debian's
// Chromium, all talking to one loopback server started here. Runtimes that
// are not installed are skipped and named; under CI the four that npm
// installs must run (RUNTIMES_REQUIRE_ALL=0 relaxes that, =1 enforces it
// locally); Chromium comes from apt and is skipped, loudly, if absent.
//
//   node scripts/test-runtimes.mjs [node bun deno workerd chromium]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMatrixServer } from '../test/runtimes/server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const modules = join(root, 'node_modules');
const entryCli = join(root, 'test/runtimes/entry-cli.mjs');
const RUN_TIMEOUT = 90_000;
const requireAll = process.env.RUNTIMES_REQUIRE_ALL ? process.env.RUNTIMES_REQUIRE_ALL === '1' : process.env.CI === 'true';

/** The first candidate binary that exists and answers `--version`. */
function findBinary(candidates) {
  for (const path of candidates) {
    if (!existsSync(path) || statSync(path).size < 1024 * 1024) continue; // skip npm's placeholder scripts
    const probe = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 20_000 });
    if (probe.status === 0) return { path, version: probe.stdout.trim().split('\n')[0] };
  }
  return undefined;
}

// The npm packages ship their binaries in platform packages; their
// postinstall moves them into place. Look in both places, so the matrix runs
// whether or not install scripts ran.
const bunBinary = () =>
  findBinary([
    join(modules, 'bun/bin/bun.exe'),
    join(modules, '@oven/bun-linux-x64/bin/bun'),
    join(modules, '@oven/bun-linux-x64-baseline/bin/bun'),
    join(modules, '@oven/bun-linux-aarch64/bin/bun'),
  ]);
const denoBinary = () =>
  findBinary([join(modules, 'deno/deno'), join(modules, '@deno/linux-x64-glibc/deno'), join(modules, '@deno/linux-arm64-glibc/deno')]);

/** Runs entry-cli.mjs in a child process and parses its SMOKE-RESULT line. */
function runCli(runtime, command, args, server) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, [...args, entryCli, runtime, server.base, server.deadUrl], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('SMOKE-RESULT '));
      if (line) resolvePromise(JSON.parse(line.slice('SMOKE-RESULT '.length)));
      else resolvePromise({ runtime, crashed: `exit ${code ?? signal}\n${out}\n${err}`.trim() });
    });
  });
}

async function bundle(entry) {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

const RUNNERS = {
  async node(server) {
    return { version: process.version, run: () => runCli('node', process.execPath, [], server) };
  },
  async bun(server) {
    const bin = bunBinary();
    if (!bin) return { skip: 'no Bun binary in node_modules (npm install bun)' };
    return { version: `bun ${bin.version}`, run: () => runCli('bun', bin.path, ['run'], server) };
  },
  async deno(server) {
    const bin = denoBinary();
    if (!bin) return { skip: 'no Deno binary in node_modules (npm install deno)' };
    // Only loopback, nothing else: no prompts, no reading the project's npm config.
    const args = ['run', '--allow-net=127.0.0.1', '--no-prompt', '--no-config', '--no-npm', '--no-lock'];
    return { version: bin.version, run: () => runCli('deno', bin.path, args, server) };
  },
  async workerd(server) {
    let Miniflare;
    try {
      ({ Miniflare } = await import('miniflare'));
    } catch {
      return { skip: 'miniflare is not installed' };
    }
    return {
      version: 'workerd via miniflare 3',
      run: async () => {
        // Miniflare 3's workers reach 127.0.0.1 directly: their outbound
        // fetch goes through workerd's network with private addresses allowed.
        const mf = new Miniflare({ modules: true, script: await bundle('test/runtimes/entry-worker.js'), compatibilityDate: '2024-09-23' });
        try {
          const query = new URLSearchParams({ base: server.base, dead: server.deadUrl });
          const response = await mf.dispatchFetch(`http://smoke.local/?${query}`);
          const text = await response.text();
          try {
            return JSON.parse(text);
          } catch {
            return { runtime: 'workerd', crashed: `HTTP ${response.status}: ${text.slice(0, 2000)}` };
          }
        } finally {
          await mf.dispose();
        }
      },
    };
  },
  async chromium(server) {
    const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
    if (!existsSync(path)) return { skip: `no Chromium at ${path} (apt-get install chromium)` };
    const { chromium } = await import('playwright-core');
    return {
      version: 'Debian Chromium',
      run: async () => {
        const browser = await chromium.launch({ executablePath: path, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-quic'] });
        try {
          const page = await browser.newPage();
          const errors = [];
          page.on('pageerror', (error) => errors.push(String(error)));
          await page.goto(`${server.base}/__smoke/index.html?dead=${encodeURIComponent(server.deadUrl)}`);
          await page.waitForFunction(() => window.__smoke !== undefined, undefined, { timeout: 30_000 }).catch(() => undefined);
          if (errors.length) return { runtime: 'chromium', crashed: errors.join('\n') };
          return await page.evaluate(() => window.__smoke);
        } finally {
          await browser.close();
        }
      },
    };
  },
};

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(RUNNERS);
const browserBundle = await bundle('test/runtimes/entry-browser.js');
const server = await startMatrixServer({
  '/__smoke/index.html': { type: 'text/html', body: '<!doctype html><title>pollite smoke</title><script type="module" src="/__smoke/smoke.js"></script>' },
  '/__smoke/smoke.js': { type: 'text/javascript', body: browserBundle },
});

const summary = { passed: [], failed: [], skipped: [] };
try {
  for (const name of wanted) {
    const runner = RUNNERS[name];
    if (!runner) throw new Error(`unknown runtime ${name}; known: ${Object.keys(RUNNERS).join(', ')}`);
    const prepared = await runner(server);
    if (prepared.skip) {
      console.log(`\n${name}: SKIPPED (${prepared.skip})`);
      summary.skipped.push(name);
      continue;
    }
    const started = Date.now();
    let report;
    try {
      report = await prepared.run();
    } catch (error) {
      report = { runtime: name, crashed: String(error?.stack ?? error) };
    }
    console.log(`\n${name} (${prepared.version}), ${Date.now() - started} ms`);
    if (report.crashed) {
      console.log(`  CRASHED: ${report.crashed}`);
      summary.failed.push(name);
      continue;
    }
    for (const result of report.results) {
      const skipped = result.ok && result.detail.startsWith('SKIP');
      console.log(`  ${result.ok ? (skipped ? '-' : '✓') : '✗'} ${result.name}${result.detail ? `: ${result.detail}` : ''}`);
    }
    (report.results.every((r) => r.ok) ? summary.passed : summary.failed).push(name);
  }
} finally {
  await server.close();
}

console.log(
  `\nruntime matrix: ${summary.passed.length} runtimes passed, ${summary.failed.length} failed, ${summary.skipped.length} skipped` +
    (summary.skipped.length ? ` (skipped: ${summary.skipped.join(', ')})` : '') +
    (summary.failed.length ? ` (failed: ${summary.failed.join(', ')})` : ''),
);
if (summary.failed.length) process.exit(1);
// The npm-shipped runtimes can always be installed, so CI may not skip them. Chromium comes from apt
// (.ci/run installs it): if that install failed, the browser tests are skipped too, loudly, not failed.
const mustRun = summary.skipped.filter((name) => name !== 'chromium');
if (requireAll && mustRun.length) {
  console.log(`CI runs every runtime: ${mustRun.join(', ')} missing (they are devDependencies: npm ci installs them).`);
  process.exit(1);
}
