/**
 * String similarity measures of the intent matcher: pure functions with no imports (usable in workflow code).
 */

// Three rows of the distance table, reused across calls (and grown when a longer word comes): matching allocates
// nothing per pair of tokens. Safe because JavaScript runs one call at a time.
let rows = [new Int32Array(32), new Int32Array(32), new Int32Array(32)];

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions, so "cancle" is one edit from
 * "cancel"). Answers `limit + 1` as soon as the distance is known to exceed `limit`.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (rows[0].length <= b.length) rows = rows.map(() => new Int32Array(b.length * 2));
  let [prevPrev, prev, row] = rows;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prevPrev[j - 2] + 1);
      row[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    [prevPrev, prev, row] = [prev, row, prevPrev];
  }
  return prev[b.length];
}

/**
 * How far one token stands for another: 1 when equal; for typos, 0.9 × (1 − edits / length) when both have at least
 * four characters, share their first letter (typos rarely hit it, and it keeps "cost" from matching "post") and differ
 * by one edit (two from seven characters on); otherwise 0. Short words must match exactly: "hi" is not "ho".
 */
export function tokenSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 4 || b.length < 4 || a[0] !== b[0]) return 0;
  const longest = Math.max(a.length, b.length);
  const limit = longest >= 7 ? 2 : 1;
  const d = editDistance(a, b, limit);
  return d > limit ? 0 : 0.9 * (1 - d / longest);
}

/**
 * Character trigrams of a token list joined by spaces, padded so that word starts and ends count: sorted, without
 * repeats. Each trigram is one small integer (ten bits of each of its three characters) rather than a string, so
 * that comparing two lists is a merge of integer arrays. Characters 1,024 code units apart share bits, which only
 * blurs the similarity of scripts that mix such characters in the same position.
 */
export function trigrams(tokens: string[]): Int32Array {
  const s = `  ${tokens.join(' ')} `;
  const grams = new Int32Array(Math.max(0, s.length - 2));
  for (let i = 0; i < grams.length; i++) {
    grams[i] = ((s.charCodeAt(i) & 0x3ff) << 20) | ((s.charCodeAt(i + 1) & 0x3ff) << 10) | (s.charCodeAt(i + 2) & 0x3ff);
  }
  grams.sort();
  let unique = 0;
  for (let i = 0; i < grams.length; i++) if (i === 0 || grams[i] !== grams[i - 1]) grams[unique++] = grams[i];
  return grams.subarray(0, unique);
}

/** Dice coefficient of two trigram lists: robust to typos, merged or split words ("openinghours"). */
export function trigramDice(a: Int32Array, b: Int32Array): number {
  if (!a.length || !b.length) return 0;
  let shared = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) {
      shared++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return (2 * shared) / (a.length + b.length);
}

/** Whether `needle` occurs as a contiguous run of `haystack`. */
export function containsRun(haystack: string[], needle: string[]): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}
