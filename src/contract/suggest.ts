// "Did you mean …?" for near misses: a misspelt command, tool name, tag or built-in. Optimal string
// alignment distance (Levenshtein plus swapping two neighbours, the commonest typo), so `fee_qoute`
// finds `fee_quote`. Only close candidates are offered: a suggestion that is not what the person
// meant is worse than none.

/** Edits (insert, delete, substitute, swap two neighbours) between two strings. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidate within a third of the input's length (at least 1 edit, at most 3), or
 *  one that differs only in case; null when nothing is that close. */
export function closest(input: string, candidates: Iterable<string>): string | null {
  const lower = input.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(input.length / 3)));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    if (c === input) continue;
    const distance = c.toLowerCase() === lower ? 0 : editDistance(lower, c.toLowerCase());
    if (distance <= limit && distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` Did you mean "x"?` (with a leading space), or "" when no candidate is close. */
export function didYouMean(input: string, candidates: Iterable<string>, quote = (s: string) => `"${s}"`): string {
  const near = closest(input, candidates);
  return near === null ? "" : ` Did you mean ${quote(near)}?`;
}
