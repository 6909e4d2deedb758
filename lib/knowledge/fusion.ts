/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each list gives an item 1 / (k + rank), summed over
 * the lists it is in. Rankings from different scorers (text rank, cosine similarity) combine without calibrating
 * their scores; k = 60 is the paper's constant.
 */
export const RRF_K = 60;

export function reciprocalRankFusion(lists: string[][], k = RRF_K): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
