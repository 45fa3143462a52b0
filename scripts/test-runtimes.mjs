// The runtime matrix: runs test/runtimes/smoke.js against the BUILT package
// (dist/) in Node, Bun, Deno, workerd (through miniflare) and Debian's
// Chromium, all talking to one loopback server started here. Every runtime is
// found through scripts/find-tools.mjs. Under CI every runtime must run and
// every case must pass: a missing runtime fails the run before anything
// starts, and a case that says SKIP is a failure (no variable relaxes that;
// POLLITE_REQUIRE_TOOLS=1 applies the same rule locally). Elsewhere missing
// runtimes and skipped cases are named loudly.
//
//   node scripts/test-runtimes.mjs [node bun deno workerd chromium]
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMatrixServer } from '../test/runtimes/server.mjs';
import { judgeReport } from '../test/runtimes/verdict.mjs';
import { findTool, ignoredRelaxations, toolsRequired } from './find-tools.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entryCli = join(root, 'test/runtimes/entry-cli.mjs');
const RUN_TIMEOUT = 90_000;
const strict = toolsRequired();

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
  async bun(server, bin) {
    return { version: `bun ${bin.version}`, run: () => runCli('bun', bin.path, ['run'], server) };
  },
  async deno(server, bin) {
    // Only loopback, nothing else: no prompts, no reading the project's npm config.
    const args = ['run', '--allow-net=127.0.0.1', '--no-prompt', '--no-config', '--no-npm', '--no-lock'];
    return { version: bin.version, run: () => runCli('deno', bin.path, args, server) };
  },
  async workerd(server, bin) {
    const { Miniflare } = await import('miniflare');
    return {
      version: `${bin.version} via miniflare 3`,
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
  async chromium(server, bin) {
    const path = bin.path;
    const { chromium } = await import('playwright-core');
    return {
      version: bin.version,
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
for (const name of wanted) if (!RUNNERS[name]) throw new Error(`unknown runtime ${name}; known: ${Object.keys(RUNNERS).join(', ')}`);
for (const key of ignoredRelaxations()) console.log(`${key}=${process.env[key]} is ignored under CI: every runtime must run.`);

// Every runtime but Node is an external tool: find them all before anything starts.
const binaries = {};
const missing = [];
for (const name of wanted) {
  if (name === 'node') continue;
  const lookup = findTool(name);
  if (lookup.found) binaries[name] = lookup;
  else missing.push(lookup);
}
if (missing.length && strict) {
  for (const lookup of missing) console.error(`runtime ${lookup.name} is missing: ${lookup.reason}`);
  console.error(`runtime matrix: FAILED before it started: under CI every runtime runs (${missing.map((l) => l.name).join(', ')} missing).`);
  process.exit(1);
}

const browserBundle = await bundle('test/runtimes/entry-browser.js');
const server = await startMatrixServer({
  '/__smoke/index.html': { type: 'text/html', body: '<!doctype html><title>pollite smoke</title><script type="module" src="/__smoke/smoke.js"></script>' },
  '/__smoke/smoke.js': { type: 'text/javascript', body: browserBundle },
});

const summary = { passed: [], failed: [], skipped: [] };
const skippedCases = [];
try {
  for (const name of wanted) {
    const absent = missing.find((lookup) => lookup.name === name);
    if (absent) {
      console.log(`\n*** ${name}: SKIPPED (${absent.reason}) ***`);
      summary.skipped.push(name);
      continue;
    }
    const prepared = await RUNNERS[name](server, binaries[name]);
    const started = Date.now();
    let report;
    try {
      report = await prepared.run();
    } catch (error) {
      report = { runtime: name, crashed: String(error?.stack ?? error) };
    }
    console.log(`\n${name} (${prepared.version}), ${Date.now() - started} ms`);
    const judged = judgeReport(report, { strict });
    for (const line of judged.lines) console.log(line);
    skippedCases.push(...judged.skippedCases.map((c) => `${name}: ${c}`));
    (judged.passed ? summary.passed : summary.failed).push(name);
  }
} finally {
  await server.close();
}

console.log(
  `\nruntime matrix: ${summary.passed.length} runtimes passed, ${summary.failed.length} failed, ${summary.skipped.length} skipped` +
    (summary.skipped.length ? ` (skipped: ${summary.skipped.join(', ')})` : '') +
    (summary.failed.length ? ` (failed: ${summary.failed.join(', ')})` : ''),
);
if (skippedCases.length) console.log(`*** ${skippedCases.length} smoke cases SKIPPED: ${skippedCases.join('; ')} ***`);
if (summary.failed.length || summary.passed.length === 0) process.exit(1);
