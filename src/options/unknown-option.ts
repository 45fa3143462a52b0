/**
 * Edits between `a` and `b`, case-insensitive: insertions, deletions,
 * substitutions and swaps of two neighbours (`retires` is one edit from
 * `retries`), each counting 1.
 */
export function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  // Three rows of the table: two back (for a swap), the last, and this one.
  let before: number[] = [];
  let last = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= y.length; j += 1) {
      const same = x[i - 1] === y[j - 1] ? 0 : 1;
      row[j] = Math.min(last[j]! + 1, row[j - 1]! + 1, last[j - 1]! + same);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) row[j] = Math.min(row[j]!, before[j - 2]! + 1);
    }
    before = last;
    last = row;
  }
  return last[y.length]!;
}

/**
 * The name of `known` nearest to `name`, if one is near enough to be what
 * was meant: at most a third of `name`'s letters apart (one edit for a name
 * of up to five letters), case aside. The first of equals wins.
 */
export function nearest(name: string, known: readonly string[]): string | undefined {
  const most = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let fewest = most + 1;
  for (const candidate of known) {
    const edits = distance(name, candidate);
    if (edits < fewest) {
      best = candidate;
      fewest = edits;
    }
  }
  return best;
}

/**
 * The `TypeError` for an option nothing reads, naming it and what was
 * probably meant: ``Unknown option `isdone`: did you mean `isDone`?``, or,
 * with no name near, the names there are. `path` prefixes both, for a
 * nested object (`retry.`).
 */
export function unknownOption(name: string, known: readonly string[], path = ''): TypeError {
  const meant = nearest(name, known);
  const list = known.map((other) => `\`${path}${other}\``).join(', ');
  return new TypeError(`Unknown option \`${path}${name}\`: ${meant === undefined ? `expected one of ${list}` : `did you mean \`${path}${meant}\`?`}`);
}
