/**
 * How many chunks of a knowledge base hold each lexeme (`ts_stat` over its chunks), for weighing a question's words
 * by rarity and finding candidates by the rare ones. Computing it reads every chunk (about 0.4 s for 15,000), so each
 * process keeps the last few knowledge bases' counts and computes them again only when the knowledge base's documents
 * changed (their count or latest update moved). Counts a little stale between a change and the next query only
 * shift weights; which chunks exist is always read fresh.
 */
import type { Knex } from '@mikro-orm/postgresql';

export interface TermStats {
  /** Chunks of the knowledge base. */
  total: number;
  /** Chunks holding each lexeme. */
  chunks: Map<string, number>;
}

const KEPT = 16;
const cache = new Map<number, { version: string; stats: Promise<TermStats> }>();

async function versionOf(knex: Knex, baseId: number): Promise<string> {
  const row = (
    await knex.raw(`select count(*) as n, max(updated_at) as at, sum(chunk_count) as chunks from knowledge_documents where knowledge_base_id = ?`, [
      baseId,
    ])
  ).rows[0];
  return `${row.n}:${row.at ? new Date(row.at).getTime() : 0}:${row.chunks ?? 0}`;
}

async function compute(knex: Knex, baseId: number): Promise<TermStats> {
  const rows = (
    await knex.raw(`select word, ndoc from ts_stat(format('select tsv from knowledge_chunks where knowledge_base_id = %s', ?::int))`, [baseId])
  ).rows as { word: string; ndoc: number }[];
  const total = Number((await knex.raw(`select count(*) as n from knowledge_chunks where knowledge_base_id = ?`, [baseId])).rows[0].n);
  return { total, chunks: new Map(rows.map((r) => [r.word, Number(r.ndoc)])) };
}

export async function termStats(knex: Knex, baseId: number): Promise<TermStats> {
  const version = await versionOf(knex, baseId);
  const kept = cache.get(baseId);
  if (kept?.version === version) return kept.stats;
  const stats = compute(knex, baseId);
  cache.delete(baseId);
  cache.set(baseId, { version, stats });
  if (cache.size > KEPT) cache.delete(cache.keys().next().value!);
  stats.catch(() => cache.delete(baseId));
  return stats;
}
