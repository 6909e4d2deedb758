/**
 * Retrieval in PostgreSQL. Full text, in each knowledge base's language: BM25F over statistics kept as chunks are
 * written (`bm25.ts`), headings and the document title as fields of their own. Code identifiers are read as their
 * words too (`searchableText`). Vectors: the dot product of unit vectors, by pgvector (`<#>`) when the
 * extension is installed, else in SQL over `real[]`, from `MIN_SIMILARITY` up. Only chunks of a document's current
 * revision count.
 */
import type { Knex } from '@mikro-orm/postgresql';
import { searchableText } from '../../lib/knowledge/search-text.js';
import { unit } from './knowledge-index.js';
import { baseStats, bm25Sql } from './bm25.js';

export interface SearchScope {
  accountId: number;
  /** The knowledge bases searched, each with its text search configuration. */
  bases: { id: number; language: string }[];
  /** Only these documents, when given. */
  documentIds?: string[];
  limit: number;
}

export interface Hit {
  chunkId: string;
  score: number;
}

export interface Passage {
  chunkId: string;
  documentId: string;
  title: string;
  headingPath: string[];
  position: number;
  text: string;
}

const documentFilter = (scope: SearchScope) => (scope.documentIds?.length ? 'and c.document_id = any(:documentIds::uuid[])' : '');

/**
 * Ranks the chunks of the knowledge bases for a question by BM25F (`bm25.ts`), each base with its own statistics and
 * language; only chunks of a document's current revision, of the account and the scope's documents count.
 */
export async function searchText(knex: Knex, scope: SearchScope, query: string): Promise<Hit[]> {
  if (!query.trim() || !scope.bases.length) return [];
  const words = searchableText(query);
  const bindings: Record<string, unknown> = { accountId: scope.accountId, limit: scope.limit, documentIds: scope.documentIds ?? [] };
  const selects: string[] = [];
  for (const [b, base] of scope.bases.entries()) {
    const stats = await baseStats(knex, base.id, base.language, words);
    if (!stats?.terms.length) continue;
    const { sql, bindings: own } = bm25Sql(stats, b, documentFilter(scope));
    Object.assign(bindings, own, { [`base${b}`]: base.id });
    selects.push(sql);
  }
  if (!selects.length) return [];
  const result = await knex.raw(
    `select h.chunk_id as id, h.score from (${selects.join(' union all ')}) h
     join knowledge_chunks c on c.id = h.chunk_id join knowledge_documents d on d.id = c.document_id and d.revision = c.revision
     where c.account_id = :accountId ${documentFilter(scope)}
     order by h.score desc, h.chunk_id limit :limit`,
    bindings,
  );
  return result.rows.map((r: { id: string; score: number }) => ({ chunkId: String(r.id), score: Number(r.score) }));
}

let pgvector: Promise<boolean> | undefined;

/** Whether pgvector is installed in this database (asked once per process). */
export function hasPgvector(knex: Knex): Promise<boolean> {
  pgvector ??= knex.raw(`select exists (select 1 from pg_extension where extname = 'vector') as present`).then((r) => Boolean(r.rows[0]?.present));
  return pgvector;
}

/**
 * Below this cosine similarity a chunk is not near the question at all: the vector ranking leaves it out, so a
 * question about nothing in the knowledge base finds nothing (and the agent says it does not know).
 */
export const MIN_SIMILARITY = 0.3;

export async function searchVectors(knex: Knex, scope: SearchScope, vector: number[]): Promise<Hit[]> {
  if (!scope.bases.length) return [];
  const unitVector = unit(vector);
  const similarity = (await hasPgvector(knex))
    ? `-(c.embedding::vector <#> :vector::real[]::vector)`
    : `(select sum(a * b) from unnest(c.embedding, :vector::real[]) as t(a, b))`;
  const result = await knex.raw(
    `select id, score from (
       select c.id, ${similarity} as score from knowledge_chunks c
       join knowledge_documents d on d.id = c.document_id and d.revision = c.revision
       where c.knowledge_base_id = any(:bases::int[]) and c.account_id = :accountId and c.embedding is not null ${documentFilter(scope)}
     ) near where score >= :min order by score desc, id limit :limit`,
    {
      vector: unitVector,
      min: MIN_SIMILARITY,
      bases: scope.bases.map((b) => b.id),
      accountId: scope.accountId,
      limit: scope.limit,
      documentIds: scope.documentIds ?? [],
    },
  );
  return result.rows.map((r: { id: string; score: number }) => ({ chunkId: String(r.id), score: Number(r.score) }));
}

/** Whether any chunk of these knowledge bases has an embedding (else vector search is skipped). */
export async function hasEmbeddings(knex: Knex, baseIds: number[]): Promise<boolean> {
  const r = await knex.raw(
    `select exists (select 1 from knowledge_chunks where knowledge_base_id = any(?::int[]) and embedding is not null) as any`,
    [baseIds],
  );
  return Boolean(r.rows[0]?.any);
}

/** The passages of these chunks of the account, in the order asked (missing ones left out). */
export async function passagesOf(knex: Knex, accountId: number, chunkIds: string[]): Promise<Passage[]> {
  if (!chunkIds.length) return [];
  const rows = await knex('knowledge_chunks as c')
    .join('knowledge_documents as d', 'd.id', 'c.document_id')
    .where('c.account_id', accountId)
    .whereIn('c.id', chunkIds)
    .select('c.id', 'c.document_id', 'd.title', 'c.heading_path', 'c.position', 'c.text');
  const byId = new Map(
    rows.map((r) => [
      String(r.id),
      { chunkId: String(r.id), documentId: r.document_id, title: r.title, headingPath: r.heading_path, position: r.position, text: r.text },
    ]),
  );
  return chunkIds.flatMap((id) => byId.get(id) ?? []);
}
