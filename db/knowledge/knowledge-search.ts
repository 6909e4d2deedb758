/**
 * Retrieval in PostgreSQL. Full text: the question's words as an OR of their lexemes (`websearch_to_tsquery` keeps
 * quotes, `-` and `or` when the question uses them, and a chunk matching it whole scores double), ranked by
 * `ts_rank_cd` over the chunk's weighted vector (headings A, title C, text B: a word in a heading counts 2.5 times
 * one in the text), in each knowledge base's language, through the GIN index. Vectors: the dot product of unit
 * vectors, by pgvector (`<#>`) when the extension is installed, else in SQL over `real[]`, from `MIN_SIMILARITY` up.
 * Only chunks of a
 * document's current revision count.
 */
import type { Knex } from '@mikro-orm/postgresql';
import { unit } from './knowledge-index.js';

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

export async function searchText(knex: Knex, scope: SearchScope, query: string): Promise<Hit[]> {
  if (!query.trim() || !scope.bases.length) return [];
  const result = await knex.raw(
    `with bases as (
       select b.id, b.language::regconfig as cfg from json_to_recordset(:bases::json) as b(id int, language text)
     ), q as (
       select b.id, websearch_to_tsquery(b.cfg, :query) as whole,
         nullif(array_to_string(array(select quote_literal(lexeme) from unnest(to_tsvector(b.cfg, :query))), ' | '), '')::tsquery as anyword
       from bases b
     )
     select c.id, ts_rank_cd(c.tsv, q.anyword) * (case when c.tsv @@ q.whole then 2 else 1 end) as score
     from q join knowledge_chunks c on c.knowledge_base_id = q.id and c.account_id = :accountId and c.tsv @@ q.anyword
     join knowledge_documents d on d.id = c.document_id and d.revision = c.revision
     where q.anyword is not null ${documentFilter(scope)}
     order by score desc, c.id limit :limit`,
    { bases: JSON.stringify(scope.bases), query, accountId: scope.accountId, limit: scope.limit, documentIds: scope.documentIds ?? [] },
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
