/**
 * Retrieval in PostgreSQL. Full text, in each knowledge base's language, through the GIN index: a question's words
 * are weighed by how rare they are in the knowledge base (inverse chunk frequency, `term-stats.ts`), so
 * "koa" outweighs "version"; a word in a heading (weight A) or the document title (C) counts 1.5 times one in the
 * text (B); `ts_rank_cd` adds proximity; the share of the question's weight a chunk holds raises its score (every
 * word: double); quotes and `-` as the user wrote them (`websearch_to_tsquery`) add a bonus. Code identifiers are
 * read as their words too (`searchableText`). Vectors: the dot product of unit vectors, by pgvector (`<#>`) when the
 * extension is installed, else in SQL over `real[]`, from `MIN_SIMILARITY` up. Only chunks of a document's current
 * revision count.
 */
import type { Knex } from '@mikro-orm/postgresql';
import { searchableText } from '../../lib/knowledge/search-text.js';
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

/**
 * Candidates hold one of the question's rarer words (in at most this share of the chunks, at most `FINDERS` of
 * them), or two of its other words (any two of the `PAIRED` rarest of those): one rare word of the question ("give") must
 * not be the only way in, and a chunk sharing a single common word with it is not worth ranking.
 */
const RARE_SHARE = 0.03;

/** A word in a heading (A) or in the document title (C) counts this many times one in the text. */
const HEADING_BOOST = 1.5;
const TITLE_BOOST = 1.5;
/**
 * The share of the question's weight (its words' idf) a chunk holds, c, multiplies its score by 1 + c²: a chunk with
 * every word doubles, one missing only a common word ("need", "get") loses little, one missing the rarest loses most.
 */
const COVERAGE_POWER = 2;
/** A chunk matching the question's quotes and `-` exclusions as written (`websearch_to_tsquery`), when it has any. */
const OPERATORS_BONUS = 1.5;
const FINDERS = 4;
/**
 * Chunks whose proximity is ranked: the best this many by the rest of the score (proximity multiplies it by 1 + cd).
 * A question with common words has hundreds of candidates, and ts_rank_cd is most of their cost; one past these would
 * need a proximity several times the leaders' to reach the top.
 */
const PROXIMITY_RANKED = 200;
const PAIRED = 4;

/** A lexeme as a tsquery operand (quoted, so no character of it is read as an operator). */
const operand = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** A question's words in one knowledge base: each lexeme's inverse chunk frequency, the rarer ones, the finder. */
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
  const found = terms.filter((t) => t.n <= Math.max(20, stats.total * RARE_SHARE)).slice(0, FINDERS);
  const rare = (found.length ? found : terms.slice(0, 2)).map((t) => operand(t.lexeme));
  const others = terms.filter((t) => !found.includes(t)).slice(0, PAIRED);
  const pairs = others.flatMap((t, i) => others.slice(i + 1).map((u) => `(${operand(t.lexeme)} & ${operand(u.lexeme)})`));
  return { ...base, terms, rare: rare.join(' | '), finder: [...rare, ...pairs].join(' | ') };
}

/**
 * Ranks the chunks of the knowledge bases for a question. Candidates come through the GIN index (each base's
 * finder is a constant tsquery the planner sees). Each scores the idf of the question's words it holds, 1.5 times
 * in a heading (A) or the title (C), times 1 + ts_rank_cd of the rarer words (proximity), times 1 + c² for the share c
 * of the question's idf it holds, times `OPERATORS_BONUS` when the question has quotes or `-` and the chunk matches
 * them (websearch_to_tsquery). The per-word tests are constants in the statement, tested once per candidate (a few
 * lookups in its tsvector).
 */
export async function searchText(knex: Knex, scope: SearchScope, query: string): Promise<Hit[]> {
  if (!query.trim() || !scope.bases.length) return [];
  const words = searchableText(query);
  const bases = (await Promise.all(scope.bases.map((b) => weighedTerms(knex, b, words)))).filter((b) => b.terms.length);
  if (!bases.length) return [];
  const bindings: Record<string, unknown> = {
    query: words,
    accountId: scope.accountId,
    limit: scope.limit,
    proximityRanked: Math.max(PROXIMITY_RANKED, 4 * scope.limit),
    documentIds: scope.documentIds ?? [],
  };
  const operators = /"|(^|\s)-\S/.test(query);
  const selects = bases.map((base, b) => {
    Object.assign(bindings, { [`base${b}`]: base.id, [`cfg${b}`]: base.language, [`finder${b}`]: base.finder, [`rare${b}`]: base.rare });
    // Each word's place in the chunk, tested once: 3 a heading (A), 2 the title (C), 1 the text, 0 absent.
    const places = base.terms.map((t, i) => {
      bindings[`w${b}_${i}`] = operand(t.lexeme);
      bindings[`a${b}_${i}`] = `${operand(t.lexeme)}:A`;
      bindings[`c${b}_${i}`] = `${operand(t.lexeme)}:C`;
      return `(case when v.tsv @@ :a${b}_${i}::tsquery then 3 when v.tsv @@ :c${b}_${i}::tsquery then 2
        when v.tsv @@ :w${b}_${i}::tsquery then 1 else 0 end) as p${i}`;
    });
    const idf = base.terms.map((t) => t.idf.toFixed(6));
    const weighed = idf.map((w, i) => `${w} * (case p${i} when 3 then ${HEADING_BOOST} when 2 then ${TITLE_BOOST} when 1 then 1 else 0 end)`);
    const held = idf.map((w, i) => `(case when p${i} > 0 then ${w} else 0 end)`);
    const total = base.terms.reduce((sum, t) => sum + t.idf, 0).toFixed(6);
    const written = operators
      ? `, (case when v.tsv @@ websearch_to_tsquery(:cfg${b}::regconfig, :query) then ${OPERATORS_BONUS} else 1 end) as ws`
      : ', 1 as ws';
    // A chunk's tsvector is read once (`|| ''` makes the stored, often TOASTed value one in memory, and `offset 0`
    // keeps the planner from reading it again for each test); the word tests and proximity then use that copy.
    // Proximity (ts_rank_cd) costs most per chunk: only the best `PROXIMITY_RANKED` by the rest of the score get it.
    return `(select id, cheap * (1 + ts_rank_cd(tsv, :rare${b}::tsquery)) as score from (
      select id, tsv, (${weighed.join(' + ')}) * (1 + power((${held.join(' + ')}) / ${total}, ${COVERAGE_POWER})) * ws as cheap
      from (select v.id, v.tsv${written}, ${places.join(', ')}
        from (select c.id, c.tsv || ''::tsvector as tsv
          from knowledge_chunks c join knowledge_documents d on d.id = c.document_id and d.revision = c.revision
          where c.tsv @@ :finder${b}::tsquery and c.knowledge_base_id = :base${b} and c.account_id = :accountId ${documentFilter(scope)}
          offset 0) v) w${b}
      order by cheap desc, id limit :proximityRanked) p${b})`;
  });
  const result = await knex.raw(`${selects.join(' union all ')} order by score desc, id limit :limit`, bindings);
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
