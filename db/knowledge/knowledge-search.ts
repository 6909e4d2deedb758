/**
 * Retrieval in PostgreSQL. Full text, in each knowledge base's language, through the GIN index: a question's words
 * are weighed by how rare they are in the knowledge base (inverse chunk frequency, `term-stats.ts`), so
 * "koa" outweighs "version"; a word in a heading (weight A) counts 2.5 times, in the document title (C) 1.5 times one
 * in the text (B); `ts_rank_cd` adds proximity, and a chunk matching `websearch_to_tsquery` (every word, quotes and
 * `-` as the user wrote them) scores double. Vectors: the dot product of unit
 * vectors, by pgvector (`<#>`) when the extension is installed, else in SQL over `real[]`, from `MIN_SIMILARITY` up.
 * Only chunks of a
 * document's current revision count.
 */
import type { Knex } from '@mikro-orm/postgresql';
import { unit } from './knowledge-index.js';
import { termStats } from './term-stats.js';

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

/** Candidates are found by the question's rarer words: those in at most this share of the chunks (at most 4). */
const RARE_SHARE = 0.03;
const FINDERS = 4;

/** A question's words in one knowledge base: each lexeme's inverse chunk frequency, and those that find candidates. */
async function weighedTerms(knex: Knex, base: { id: number; language: string }, query: string) {
  const lexemes = (await knex.raw(`select lexeme from unnest(to_tsvector(?::regconfig, ?))`, [base.language, query])).rows.map(
    (r: { lexeme: string }) => r.lexeme,
  ) as string[];
  const stats = await termStats(knex, base.id);
  const terms = lexemes
    .map((lexeme) => ({ lexeme, n: stats.chunks.get(lexeme) ?? 0 }))
    .filter((t) => t.n > 0)
    .sort((a, b) => a.n - b.n)
    .map((t) => ({ ...t, idf: Math.log(1 + stats.total / t.n) }));
  const rare = terms.filter((t) => t.n <= Math.max(20, stats.total * RARE_SHARE)).slice(0, FINDERS);
  return { id: base.id, language: base.language, terms, finders: (rare.length ? rare : terms.slice(0, 2)).map((t) => t.lexeme) };
}

/** A lexeme as a tsquery operand (quoted, so no character of it is read as an operator). */
const operand = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

export async function searchText(knex: Knex, scope: SearchScope, query: string): Promise<Hit[]> {
  if (!query.trim() || !scope.bases.length) return [];
  const bases = (await Promise.all(scope.bases.map((b) => weighedTerms(knex, b, query)))).filter((b) => b.finders.length);
  if (!bases.length) return [];
  // Candidates hold a rarer word. The finder is one constant tsquery (the union of every base's rarer words), so
  // the planner finds them through the GIN index instead of testing every chunk. Each candidate scores the idf of
  // the question's words it holds, 2.5 times in a heading (A), 1.5 times in the title (C), times 1 + ts_rank_cd
  // (proximity), doubled when it matches websearch_to_tsquery (every word, quotes and - as written).
  const finder = [...new Set(bases.flatMap((b) => b.finders))].map(operand).join(' | ');
  const result = await knex.raw(
    `with bases as (
       select b.id, b.language::regconfig as cfg, b.terms
       from json_to_recordset(:bases::json) as b(id int, language text, terms json)
     ), weighted as (
       select b.id, quote_literal(t.lexeme)::tsquery as q, (quote_literal(t.lexeme) || ':A')::tsquery as heading,
         (quote_literal(t.lexeme) || ':C')::tsquery as title, t.idf
       from bases b cross join lateral json_to_recordset(b.terms) as t(lexeme text, idf float)
     ), candidates as (
       select c.id, c.knowledge_base_id, c.tsv, websearch_to_tsquery(b.cfg, :query) as whole
       from knowledge_chunks c
       join bases b on b.id = c.knowledge_base_id
       join knowledge_documents d on d.id = c.document_id and d.revision = c.revision
       where c.tsv @@ :finder::tsquery and c.knowledge_base_id = any(:baseIds::int[]) and c.account_id = :accountId
         ${documentFilter(scope)}
     )
     select k.id,
       (select sum(w.idf * case when k.tsv @@ w.heading then 2.5 when k.tsv @@ w.title then 1.5 else 1 end)
          from weighted w where w.id = k.knowledge_base_id and k.tsv @@ w.q)
       * (1 + ts_rank_cd(k.tsv, :finder::tsquery)) * (case when k.tsv @@ k.whole then 2 else 1 end) as score
     from candidates k
     order by score desc, k.id limit :limit`,
    {
      bases: JSON.stringify(bases),
      baseIds: bases.map((b) => b.id),
      finder,
      query,
      accountId: scope.accountId,
      limit: scope.limit,
      documentIds: scope.documentIds ?? [],
    },
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
