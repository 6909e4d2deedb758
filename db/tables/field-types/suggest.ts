/** "Did you mean" suggestions for misspelled metadata keys. */

const normalize = (key: string): string => key.toLowerCase().replace(/[_-]/g, '');

/** Levenshtein edit distance (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known key closest to `key`: one equal to it after lowercasing and removing `_` and `-` (`time_format` →
 * `timeFormat`), else the nearest within an edit distance of 2 (`formt` → `format`); undefined when none is close.
 */
export function suggestKey(key: string, known: readonly string[]): string | undefined {
  const wanted = normalize(key);
  const same = known.find((k) => normalize(k) === wanted);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = Math.min(editDistance(key, candidate), editDistance(wanted, normalize(candidate)));
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}
