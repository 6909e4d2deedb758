/**
 * The baseline of `npm run eval:knowledge`: plain Okapi BM25 (k1 1.2, b 0.75, idf ln(1 + (N − df + 0.5)/(df + 0.5)))
 * over the same chunks, computed here in memory. A chunk is one bag of terms (its stored full-text vector's lexemes,
 * headings, title and text alike, each occurrence counted once), a question the lexemes PostgreSQL reads in it in the
 * knowledge base's language: the same analyser as agentry's, no fields, no expansion.
 */
import type { Knex } from '@mikro-orm/postgresql';

const K1 = 1.2;
const B = 0.75;

export class OkapiBm25 {
  private readonly postings = new Map<string, { id: string; tf: number }[]>();
  private readonly lengths = new Map<string, number>();
  private avg = 1;

  static async load(knex: Knex, baseId: number): Promise<OkapiBm25> {
    const index = new OkapiBm25();
    const rows = (
      await knex.raw(
        `select c.id, x.lexeme, cardinality(x.positions) as tf from knowledge_chunks c
         join knowledge_documents d on d.id = c.document_id and d.revision = c.revision
         cross join lateral unnest(c.tsv) x where c.knowledge_base_id = ?`,
        [baseId],
      )
    ).rows as { id: string; lexeme: string; tf: number }[];
    for (const { id, lexeme, tf } of rows) {
      const key = String(id);
      let list = index.postings.get(lexeme);
      if (!list) index.postings.set(lexeme, (list = []));
      list.push({ id: key, tf });
      index.lengths.set(key, (index.lengths.get(key) ?? 0) + tf);
    }
    index.avg = [...index.lengths.values()].reduce((s, l) => s + l, 0) / Math.max(1, index.lengths.size);
    return index;
  }

  get chunks(): number {
    return this.lengths.size;
  }

  /** The best `k` chunk ids for these query lexemes. */
  rank(lexemes: string[], k: number): string[] {
    const n = this.lengths.size;
    const scores = new Map<string, number>();
    for (const lexeme of new Set(lexemes)) {
      const list = this.postings.get(lexeme);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { id, tf } of list) {
        const norm = tf + K1 * (1 - B + (B * this.lengths.get(id)!) / this.avg);
        scores.set(id, (scores.get(id) ?? 0) + (idf * tf * (K1 + 1)) / norm);
      }
    }
    return [...scores]
      .sort((x, y) => y[1] - x[1] || Number(x[0]) - Number(y[0]))
      .slice(0, k)
      .map(([id]) => id);
  }
}
