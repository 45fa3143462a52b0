// The one way to find each external tool the tests need. .ci/run, the test
// scripts (test-browser.mjs, test-runtimes.mjs) and the tests themselves
// (through test/helpers/tools.ts) all ask this module, so they cannot
// disagree about where a tool is or whether it is there.
//
// Under CI (CI set to anything but "", "0" or "false") a missing tool is a
// failure, whatever else the environment says; elsewhere the tests that need
// it are skipped, loudly. POLLITE_REQUIRE_TOOLS=1 applies CI's rule locally.
//
//   node scripts/find-tools.mjs                       every tool, found or not (exit 0)
//   node scripts/find-tools.mjs --require a,b|all     exit 1, with the reasons, if any is missing
//   node scripts/find-tools.mjs --debian-packages     the Debian packages of the missing apt tools
//
// POLLITE_TOOLS_ABSENT=chromium,nginx declares tools missing (for test/ci):
// it can only make a lookup fail, never pass.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const modules = join(root, 'node_modules');

/**
 * Each tool: where it is looked for (`env` names a variable that, when set,
 * is the only place looked; `paths` are fixed candidates; `onPath` is a name
 * searched on PATH, for tools the tests spawn by name), how it proves it
 * works (`probe` arguments whose output must match `expect`), and where it
 * comes from (`debian` package, or `npm` devDependency).
 */
export const TOOLS = Object.freeze({
  chromium: {
    neededBy: 'the browser tests (test/browser) and the Chromium runtime of the runtime matrix',
    env: 'CHROMIUM_PATH',
    paths: ['/usr/bin/chromium'],
    probe: ['--version'],
    expect: /Chromium \d+/,
    debian: 'chromium',
  },
  'redis-server': {
    neededBy: 'the pollite/cluster tests (test/cluster)',
    env: 'REDIS_SERVER',
    paths: ['/usr/bin/redis-server'],
    probe: ['--version'],
    expect: /Redis server v=\d/,
    debian: 'redis-server',
  },
  nginx: {
    neededBy: 'the interop tests behind a real reverse proxy (test/interop)',
    env: 'NGINX_PATH',
    paths: ['/usr/sbin/nginx'],
    probe: ['-v'],
    expect: /nginx version: nginx\/\d/,
    debian: 'nginx',
  },
  script: {
    // Debian 12 and 13 ship util-linux's `script` in bsdutils, not in the util-linux package.
    neededBy: 'the CLI terminal tests (util-linux `script` runs the bin on a pseudo-terminal)',
    onPath: 'script',
    probe: ['--version'],
    expect: /script from util-linux/,
    debian: 'bsdutils',
  },
  bun: {
    neededBy: 'the runtime matrix (npm run test:runtimes)',
    // npm's package moves its binary into place in postinstall; without install scripts it stays in the platform package.
    paths: ['bun/bin/bun.exe', '@oven/bun-linux-x64/bin/bun', '@oven/bun-linux-x64-baseline/bin/bun', '@oven/bun-linux-aarch64/bin/bun'].map((p) => join(modules, p)),
    probe: ['--version'],
    expect: /^\d+\.\d+\.\d+/,
    npm: 'bun',
  },
  deno: {
    neededBy: 'the runtime matrix (npm run test:runtimes)',
    paths: ['deno/deno', '@deno/linux-x64-glibc/deno', '@deno/linux-arm64-glibc/deno'].map((p) => join(modules, p)),
    probe: ['--version'],
    expect: /^deno \d/,
    npm: 'deno',
  },
  workerd: {
    neededBy: 'the runtime matrix (npm run test:runtimes), through miniflare',
    paths: ['@cloudflare/workerd-linux-64/bin/workerd', '@cloudflare/workerd-linux-arm64/bin/workerd'].map((p) => join(modules, p)),
    probe: ['--version'],
    expect: /^workerd \d/,
    npm: 'miniflare',
    alongside: join(modules, 'miniflare', 'package.json'),
  },
});

export const TOOL_NAMES = Object.freeze(Object.keys(TOOLS));

/** True under CI: CI set to anything but "", "0" or "false". */
export function underCi(env = process.env) {
  return env.CI !== undefined && !['', '0', 'false'].includes(env.CI.trim().toLowerCase());
}

/**
 * Whether a missing tool fails the run: always under CI (no variable can
 * lift that), or locally when asked with POLLITE_REQUIRE_TOOLS=1.
 */
export function toolsRequired(env = process.env) {
  return underCi(env) || env.POLLITE_REQUIRE_TOOLS === '1' || env.RUNTIMES_REQUIRE_ALL === '1';
}

/** Variables that used to relax the rules, named so that nobody thinks they still do under CI. */
export function ignoredRelaxations(env = process.env) {
  if (!underCi(env)) return [];
  return Object.keys(env).filter((key) => /_REQUIRE(_ALL)?$/.test(key) && ['0', 'false'].includes(String(env[key]).toLowerCase()));
}

const isFile = (path) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

const isExecutableFile = (path) => {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

function candidates(tool, env) {
  if (tool.env && env[tool.env]) return [env[tool.env]];
  if (tool.onPath) return (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, tool.onPath));
  return tool.paths;
}

function howToGet(tool) {
  const source = tool.debian ? `Debian package ${tool.debian}: apt-get install ${tool.debian}` : `npm devDependency ${tool.npm}: npm ci installs it`;
  return `${source}${tool.env ? `; or set ${tool.env} to its path` : ''}`;
}

/**
 * Finds one tool. Returns `{ name, found: true, path, version }` or
 * `{ name, found: false, reason }`, the reason saying where it was looked
 * for, what needs it and how to get it.
 */
export function findTool(name, env = process.env) {
  const tool = TOOLS[name];
  if (!tool) throw new Error(`unknown tool ${name}; known: ${TOOL_NAMES.join(', ')}`);
  const why = `${name} is needed by ${tool.neededBy} (${howToGet(tool)})`;
  const absent = (env.POLLITE_TOOLS_ABSENT ?? '').split(',').map((s) => s.trim());
  if (absent.includes(name)) return { name, found: false, reason: `${why}; declared absent by POLLITE_TOOLS_ABSENT` };
  if (tool.alongside && !isFile(tool.alongside)) return { name, found: false, reason: `${why}; ${tool.alongside} is missing` };
  const looked = [];
  for (const path of candidates(tool, env)) {
    if (!isExecutableFile(path)) {
      looked.push(`${path}: not there`);
      continue;
    }
    const probe = spawnSync(path, tool.probe, { encoding: 'utf8', timeout: 30_000 });
    const output = `${probe.stdout ?? ''}${probe.stderr ?? ''}`;
    const version = output.split('\n').find((line) => tool.expect.test(line));
    if (probe.status === 0 && version) return { name, found: true, path, version: version.trim() };
    looked.push(`${path}: \`${[path, ...tool.probe].join(' ')}\` ${probe.error ? `failed (${probe.error.message})` : `exited ${probe.status ?? probe.signal} without ${tool.expect}`}`);
  }
  const searchedPath = tool.onPath && !(tool.env && env[tool.env]);
  const broken = looked.filter((line) => !line.endsWith(': not there'));
  const where = searchedPath ? broken.join('; ') || `no ${tool.onPath} on PATH (${env.PATH ?? ''})` : looked.join('; ');
  return { name, found: false, reason: `${why}; ${where || 'nowhere to look'}` };
}

/** Names from "a,b", "all", or an array. */
export function parseNames(list) {
  const names = (Array.isArray(list) ? list : String(list).split(','))
    .map((s) => s.trim())
    .filter(Boolean)
    .flatMap((s) => (s === 'all' ? TOOL_NAMES : [s]));
  for (const name of names) if (!TOOLS[name]) throw new Error(`unknown tool ${name}; known: ${TOOL_NAMES.join(', ')}`);
  return [...new Set(names)];
}

/**
 * For the test scripts: the tool's lookup when it is there; when it is not,
 * under CI it prints the reason and exits 1, and elsewhere it says loudly
 * what is skipped and returns undefined.
 */
export function requireToolOrSkip(name, skipped, env = process.env) {
  const lookup = findTool(name, env);
  if (lookup.found) return lookup;
  if (toolsRequired(env)) {
    console.error(`\nFAILED: ${skipped} cannot run: ${lookup.reason}. Under CI a missing tool is a failure, not a skip.`);
    process.exit(1);
  }
  console.warn(`\n*** SKIPPED ${skipped}: ${lookup.reason} ***\n`);
  return undefined;
}

function main(argv) {
  const option = (flag) => {
    const at = argv.indexOf(flag);
    if (at < 0) return undefined;
    const value = argv[at + 1];
    return value === undefined || value.startsWith('--') ? 'all' : value;
  };
  for (const key of ignoredRelaxations()) console.warn(`find-tools: ${key}=${process.env[key]} is ignored under CI: every tool is required.`);
  const packages = option('--debian-packages');
  if (packages) {
    const missing = parseNames(packages).filter((name) => TOOLS[name].debian && !findTool(name).found);
    console.log([...new Set(missing.map((name) => TOOLS[name].debian))].join(' '));
    return 0;
  }
  const required = option('--require');
  const names = parseNames(required ?? 'all');
  let missing = 0;
  for (const name of names) {
    const lookup = findTool(name);
    if (lookup.found) console.log(`  ✓ ${name}: ${lookup.path} (${lookup.version})`);
    else {
      missing += 1;
      (required ? console.error : console.log)(`  ✗ ${name}: ${lookup.reason}`);
    }
  }
  if (required && missing) {
    console.error(`find-tools: ${missing} of ${names.length} required tools missing.`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main(process.argv.slice(2)));
