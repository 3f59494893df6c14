/**
 * @module cli/did-you-mean
 * "Did you mean" for a mistyped command, option or config key: the nearest known name.
 */

/** Levenshtein distance, counting a swap of two neighbours as one edit (`--prot` is one from `--port`). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name nearest to `typed`, if one is near enough to be a slip of the keyboard (two
 * edits, or three for a long name) or `typed` is the start of exactly one name.
 */
export function nearest(typed: string, known: readonly string[]): string | undefined {
  const allowed = typed.length >= 8 ? 3 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(typed, name);
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  if (best) return best.name;
  const prefixed = typed.length >= 3 ? known.filter((name) => name.startsWith(typed)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
