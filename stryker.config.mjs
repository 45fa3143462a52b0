// Mutation testing (npm run test:mutation; not part of npm test): Stryker mutates
// the core's folders and runs, for each mutant, the vitest tests that cover it.
// See docs/mutation.md for how to run it and the last scores.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
//
// One folder at a time fits 2 cores:
//   npm run test:mutation -- --mutate "src/policy/**/*.ts"
// Each --mutate set keeps its own incremental file and JSON report in
// .tmp/mutation/, so `--incremental` reruns only what changed in that set.

/** The folders under mutation testing (a glob that matches nothing, such as src/cluster before it exists, is ignored). */
export const FOLDERS = ['engine', 'poll', 'policy', 'backoff', 'retry', 'http', 'env', 'cooldown', 'cooperate', 'cluster', 'operation'];

/**
 * The tests that run against the mutated source: the core's own folders. Left out: tests of the
 * built package (they read dist/, built from the unmutated source), of the adapters and the CLI,
 * and those that start processes (the active mutant lives in the test worker) or need an
 * external tool. `--testFiles` narrows further.
 */
const TEST_FOLDERS = ['backoff', 'cluster', 'cooldown', 'cooperate', 'engine', 'env', 'errors', 'hostile', 'http', 'observe', 'operation', 'options', 'policy', 'poll', 'property', 'retry', 'writes'];
const testFiles = TEST_FOLDERS.flatMap((folder) => {
  const dir = join('test', folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map((name) => join(dir, String(name)))
    .filter((file) => /\.test\.tsx?$/.test(file) && !/types\.test\.tsx?$/.test(file))
    .filter((file) => !/\bdist\/|ensureBin\(|requireOrSkip\(|hasRedis\(|startWorker\(|\b(spawn|spawnSync|fork|execFile)\(/.test(readFileSync(file, 'utf8')));
});

// Mutation testing is not CI: 200 generated cases per property keep a run within reach of 2 cores
// (FC_RUNS=1000 npm run test:mutation for the full count).
process.env.FC_RUNS ??= '200';

const argv = process.argv;
const at = argv.findIndex((arg) => arg === '--mutate' || arg === '-m');
const asked = at >= 0 ? argv[at + 1] : undefined;
/** "src/policy/**\/*.ts" → "policy"; several folders or none → "all". */
const tag = asked ? (/^src\/([\w-]+)\/\*\*\/\*\.ts$/.exec(asked)?.[1] ?? asked.replace(/[^\w-]+/g, '_')) : 'all';

export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.config.ts', related: true },
  testFiles,
  checkers: ['typescript'],
  // The checker compiles src alone (the build's tsconfig): a mutant that does not type-check is not run.
  tsconfigFile: 'tsconfig.build.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  appendPlugins: ['./scripts/mutation-summary.mjs'],
  mutate: FOLDERS.flatMap((folder) => [`src/${folder}/**/*.ts`, `!src/${folder}/**/index.ts`]),
  coverageAnalysis: 'perTest',
  // Module-level constants would rerun every test for each mutant; their meaning is covered by the tests of what reads them.
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 10_000,
  dryRunTimeoutMinutes: 30,
  reporters: ['clear-text', 'progress', 'json', 'html', 'folder-summary'],
  clearTextReporter: { allowColor: false, logTests: false, reportTests: false, reportMutants: true, reportScoreTable: true },
  jsonReporter: { fileName: `.tmp/mutation/${tag}.json` },
  htmlReporter: { fileName: `.tmp/mutation/${tag}.html` },
  incrementalFile: `.tmp/mutation/${tag}.incremental.json`,
  tempDirName: '.tmp/stryker',
  ignorePatterns: ['dist', 'coverage', '.tmp', 'playground/dist', 'test/react18/node_modules', '*.tgz'],
  thresholds: { high: 90, low: 75, break: null },
};
