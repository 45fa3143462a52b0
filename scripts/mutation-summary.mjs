// The mutation score per source folder, and every surviving mutant with its
// file:line and mutator. Two uses:
//   - a Stryker reporter ("folder-summary", loaded by stryker.config.mjs), printed after each run;
//   - node scripts/mutation-summary.mjs [report.json…]: the JSON reports of earlier runs
//     (default: every .tmp/mutation/*.json), merged, the latest report winning for a file.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/** "src/policy/spread.ts" → "src/policy"; files directly under src count as "src". */
const folderOf = (file) => file.split('/').slice(0, 2).join('/').replace(/\.ts$/, '') || file;

/** The mutated code (1-based lines and columns, as the report gives them), on one line. */
function snippet(source, start, end) {
  if (typeof source !== 'string') return '';
  const lines = source.split('\n').slice(start.line - 1, end.line);
  if (lines.length === 0) return '';
  if (lines.length === 1) return lines[0].slice(start.column - 1, end.column - 1);
  lines[0] = lines[0].slice(start.column - 1);
  lines[lines.length - 1] = lines[lines.length - 1].slice(0, end.column - 1);
  return lines.join(' ');
}

const oneLine = (text, max = 70) => {
  const flat = String(text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
};

/** Per folder: counts by status and the scores (detected over detected + undetected, and over covered mutants). */
export function summarise(files) {
  const folders = new Map();
  const survivors = [];
  for (const [path, { mutants, source }] of Object.entries(files)) {
    const file = isAbsolute(path) ? relative(process.cwd(), path) : path;
    const folder = folderOf(file);
    const row = folders.get(folder) ?? { folder, total: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0, ignored: 0 };
    folders.set(folder, row);
    for (const mutant of mutants) {
      row.total += 1;
      if (mutant.status === 'Killed') row.killed += 1;
      else if (mutant.status === 'Timeout') row.timeout += 1;
      else if (mutant.status === 'Survived') row.survived += 1;
      else if (mutant.status === 'NoCoverage') row.noCoverage += 1;
      else if (mutant.status === 'Ignored') row.ignored += 1;
      else row.errors += 1; // CompileError, RuntimeError
      if (UNDETECTED.has(mutant.status)) {
        const { start, end } = mutant.location;
        survivors.push({ file, line: start.line, column: start.column, mutator: mutant.mutatorName, original: snippet(source, start, end), replacement: mutant.replacement, status: mutant.status });
      }
    }
  }
  const rows = [...folders.values()].sort((a, b) => a.folder.localeCompare(b.folder));
  for (const row of rows) {
    const detected = row.killed + row.timeout;
    const valid = detected + row.survived + row.noCoverage;
    row.score = valid ? (100 * detected) / valid : NaN;
    row.coveredScore = detected + row.survived ? (100 * detected) / (detected + row.survived) : NaN;
  }
  survivors.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  return { rows, survivors };
}

const pct = (n) => (Number.isNaN(n) ? '   n/a' : `${n.toFixed(2).padStart(6)}%`);

export function format({ rows, survivors }) {
  const lines = ['', 'Mutation score per folder (killed + timeout over all valid mutants; "covered": over mutants some test reaches)', ''];
  lines.push(`  ${'folder'.padEnd(16)} ${'score'.padStart(7)} ${'covered'.padStart(7)}  killed timeout survived no-cov errors`);
  for (const r of rows) {
    lines.push(
      `  ${r.folder.padEnd(16)} ${pct(r.score)} ${pct(r.coveredScore)}  ${String(r.killed).padStart(6)} ${String(r.timeout).padStart(7)} ${String(r.survived).padStart(8)} ${String(r.noCoverage).padStart(6)} ${String(r.errors).padStart(6)}`,
    );
  }
  lines.push('', survivors.length ? `Surviving mutants (${survivors.length}):` : 'No surviving mutant.');
  for (const s of survivors) {
    const where = `${s.file}:${s.line}:${s.column} ${s.mutator}${s.status === 'NoCoverage' ? ' (no test reaches it)' : ''}`;
    lines.push(`  ${where}: ${oneLine(s.original)}  →  ${oneLine(s.replacement)}`);
  }
  return lines.join('\n');
}

/** Stryker reporter plugin: prints the per-folder summary when the report is ready. */
class FolderSummaryReporter {
  static inject = [];
  onMutationTestReportReady(report) {
    console.log(format(summarise(report.files)));
  }
}

export const strykerPlugins = [{ kind: 'Reporter', name: 'folder-summary', injectableClass: FolderSummaryReporter }];

function main(paths) {
  const root = resolve(fileURLToPath(import.meta.url), '../..');
  const dir = join(root, '.tmp', 'mutation');
  let reports = paths;
  if (reports.length === 0) {
    try {
      reports = readdirSync(dir)
        .filter((name) => name.endsWith('.json') && !name.endsWith('.incremental.json'))
        .map((name) => join(dir, name));
    } catch {
      reports = [];
    }
  }
  if (reports.length === 0) {
    console.error(`no mutation report in ${relative(process.cwd(), dir)}: run npm run test:mutation first`);
    return 1;
  }
  // Oldest first, so that a file's latest result wins.
  reports.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
  const files = {};
  for (const path of reports) {
    const report = JSON.parse(readFileSync(path, 'utf8'));
    for (const [file, result] of Object.entries(report.files)) files[relative(root, resolve(root, file))] = result;
    console.log(`read ${relative(process.cwd(), path)}`);
  }
  console.log(format(summarise(files)));
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main(process.argv.slice(2)));
