// Others may rebuild dist/ while a long benchmark runs: benchmarks take a
// private copy of it (with the simulator's chart bundled, whoever built it
// last) and import pollite from there. Removed when the process exits.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Copies dist/ and returns `(path) => file URL` of a file in the copy. */
export function snapshotDist() {
  const dir = mkdtempSync(join(tmpdir(), 'pollite-bench-'));
  cpSync(join(root, 'dist'), dir, { recursive: true });
  execFileSync(process.execPath, [join(root, 'scripts', 'build-simulator.mjs'), dir], { stdio: 'inherit' });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return (path) => pathToFileURL(join(dir, path)).href;
}
