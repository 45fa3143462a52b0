// Runs the real-browser tests (vitest.browser.config.ts) in Debian's Chromium,
// found through scripts/find-tools.mjs. The suite cannot pass by accident:
// an empty test/browser fails; a missing Chromium fails under CI (elsewhere it
// is a loud skip); and the run must have executed at least one test, with no
// skipped test under CI.
//
//   node scripts/test-browser.mjs [FILTER…]     vitest's file filters, to run some files (refused under CI)
//   node scripts/test-browser.mjs --dir DIR     count the test files in DIR instead (test/ci checks the
//                                              empty-suite rule with it; refused under CI)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireToolOrSkip, toolsRequired, underCi } from './find-tools.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fail = (message) => {
  console.error(`browser tests: FAILED: ${message}`);
  process.exit(1);
};

const argv = process.argv.slice(2);
const at = argv.indexOf('--dir');
const filters = at < 0 ? argv : argv.filter((_, i) => i !== at && i !== at + 1);
if ((at >= 0 || filters.length) && underCi()) fail(`${argv.join(' ')}: refused under CI: CI runs the whole of test/browser`);
const dir = at >= 0 ? resolve(argv[at + 1] ?? '') : join(root, 'test/browser');

/** Test files under `folder`, recursively, as vitest.browser.config.ts finds them. */
function testFiles(folder) {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries.filter((e) => e.isFile() && e.name.endsWith('.test.ts')).map((e) => join(e.parentPath ?? e.path, e.name));
}

const files = testFiles(dir);
if (files.length === 0) fail(`no *.test.ts in ${relative(root, dir) || dir}: an empty browser suite proves nothing`);
if (!requireToolOrSkip('chromium', `the ${files.length} browser test files`)) process.exit(0);

const outDir = join(root, '.tmp', 'browser-tests');
const outFile = join(outDir, 'results.json');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const args = ['vitest', 'run', '--config', 'vitest.browser.config.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${outFile}`, ...filters];
const result = spawnSync('npx', args, { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);

let counts;
try {
  counts = JSON.parse(readFileSync(outFile, 'utf8'));
} catch (error) {
  fail(`vitest exited 0 but wrote no results (${error.message})`);
}
const ran = counts.numPassedTests + counts.numFailedTests;
const skipped = counts.numPendingTests + counts.numTodoTests;
if (ran === 0) fail(`vitest ran no test (${counts.numTotalTests} found, ${skipped} skipped)`);
if (skipped > 0 && toolsRequired()) fail(`${skipped} browser tests were skipped: under CI every browser test runs`);
if (skipped > 0) console.warn(`\n*** browser tests: ${skipped} SKIPPED (they would fail under CI) ***\n`);
console.log(`browser tests: ${counts.numPassedTests} passed, ${counts.numFailedTests} failed, ${skipped} skipped`);
