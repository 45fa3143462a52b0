// The one reading of size-budget.json, for the package check (npm test) and
// `npm run bench:size`. Every size is the entry's production build (the `production` export
// condition, without the development checks: see docs/development.md). Each entry has:
//   target   the size the project aims at (issue 34's numbers where it names them, else issue 12's). Never
//            raised to make a check pass: an entry above its target is reported as such in every run;
//   ceiling  for an entry above its target, the size it was measured at (min+gz, esbuild, minified ESM),
//            so it cannot grow unnoticed while the target is out of reach. Lower it as the entry shrinks;
//   over     instead of a fixed target, a target relative to another entry's size (`over` + `by` bytes).
// An entry fails the check when it is larger than its target and has no ceiling, or larger than its ceiling.

/** The target of `entry`, given the sizes measured so far in this run (for relative targets). */
export function targetOf(entry, sizes) {
  if (entry.target !== undefined) return entry.target;
  const base = sizes.get(entry.over);
  if (base === undefined) throw new Error(`size-budget.json: "${entry.over}" must come before the entries measured against it`);
  return base + entry.by;
}

/** The verdict on one measured entry: whether it fails, and the line that says so. */
export function verdict(label, bytes, entry, sizes) {
  const target = targetOf(entry, sizes);
  const relative = entry.over ? ` (${entry.over} + ${entry.by} B)` : '';
  if (bytes <= target) return { failed: false, line: `${label}: ${bytes} B, target ${target} B${relative}: met` };
  const over = `${bytes - target} B (${Math.round(((bytes - target) / target) * 100)} %) above its target of ${target} B${relative}`;
  if (entry.ceiling === undefined) return { failed: true, line: `${label}: ${bytes} B, ${over}: FAILED` };
  if (bytes > entry.ceiling) return { failed: true, line: `${label}: ${bytes} B, grew past its ceiling of ${entry.ceiling} B, ${over}: FAILED` };
  return { failed: false, line: `${label}: ${bytes} B, TARGET NOT MET: ${over} (no larger than its ceiling, ${entry.ceiling} B)` };
}
