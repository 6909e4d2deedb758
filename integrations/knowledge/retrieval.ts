/**
 * Finds the passages of an account's knowledge bases that answer a question: the full-text ranking, fused by
 * reciprocal rank fusion with the embedding ranking when the AI catalog has an embedding model, a provider is
 * configured and the knowledge bases' chunks have embeddings (those that have them: documents whose embeddings are
 * PENDING or UNAVAILABLE are found by their text); otherwise, or when the provider fails, the full-text ranking alone. Knowledge bases
 * of another account are never searched (they are not found, as if missing).
 *
 * Multi-query: when one of the knowledge bases searched has `multiQuery` on, the chat model is first asked for a few
 * rewordings of the question (`query-rewrite.ts`); each is searched like the question, and every ranking is fused
 * by RRF. A rewrite that cannot be had (no provider, a failure, a timeout, no credits) leaves the question alone: it
 * never fails the query, and the outcome (`rewrites`) says what happened.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AgentResource } from '../../db/agents/agent-resource.entity.js';
import { AiModel } from '../../db/catalogs/ai-model.entity.js';
import { knowledgeLanguage } from '../../db/knowledge/knowledge-index.js';
import { hasEmbeddings, passagesOf, searchText, searchVectors, type Passage, type SearchScope } from '../../db/knowledge/knowledge-search.js';
import { embeddingGap } from '../../db/knowledge/knowledge-embeddings.js';
import { reciprocalRankFusion } from '../../lib/knowledge/fusion.js';
import type { AiProvider } from '../ai/ai-provider.js';
import type { QueryRewriter } from './query-rewrite.js';

export interface RetrievalRequest {
  accountId: number;
  knowledgeBaseIds: number[];
  query: string;
  topK: number;
  documentIds?: string[];
  signal?: AbortSignal;
  /** Rewords the question when a knowledge base searched has `multiQuery` on (without it, such a query says UNAVAILABLE). */
  rewrite?: QueryRewriter;
}

/** What multi-query did for a query: OFF (no knowledge base searched has it on), USED (with `queries`), UNAVAILABLE (why in `reason`). */
export interface RewriteOutcome {
  status: 'OFF' | 'USED' | 'UNAVAILABLE';
  queries: string[];
  reason: string | null;
}

export interface RetrievedPassage extends Passage {
  score: number;
}

/** How many candidates each ranking gives the fusion. */
const CANDIDATES = 40;

/** The catalog's default embedding model, when there is one and it is not deprecated. */
export async function embeddingModel(em: EntityManager): Promise<AiModel | null> {
  return em.findOne(AiModel, { type: 'EMBEDDING', isDefault: true, deprecated: false });
}

/** The knowledge bases of the account among `ids`, with their languages. */
export async function basesOf(
  em: EntityManager,
  accountId: number,
  ids: number[],
): Promise<(SearchScope['bases'][number] & { multiQuery: boolean })[]> {
  if (!ids.length) return [];
  const found = await em.find(AgentResource, { account: accountId, kind: 'KNOWLEDGE_BASE', id: { $in: ids } }, { fields: ['id', 'values'] });
  return found.map((kb) => ({ id: kb.id, language: knowledgeLanguage(kb.values), multiQuery: kb.values.multiQuery === true }));
}

export async function retrieve(em: EntityManager, provider: AiProvider | null, request: RetrievalRequest): Promise<RetrievedPassage[]> {
  return (await retrieveWithRewrites(em, provider, request)).passages;
}

/** `retrieve`, and what multi-query did. */
export async function retrieveWithRewrites(
  em: EntityManager,
  provider: AiProvider | null,
  request: RetrievalRequest,
): Promise<{ passages: RetrievedPassage[]; rewrites: RewriteOutcome }> {
  const knex = em.getKnex();
  const bases = await basesOf(em, request.accountId, request.knowledgeBaseIds);
  const scope: SearchScope = { accountId: request.accountId, bases, documentIds: request.documentIds, limit: Math.max(CANDIDATES, request.topK) };
  const rewrites = bases.some((b) => b.multiQuery) ? await rewritesOf(request) : { status: 'OFF' as const, queries: [], reason: null };
  const queries = [request.query, ...rewrites.queries];
  const texts = [];
  for (const query of queries) texts.push(await searchText(knex, scope, query));
  const lists = texts.map((hits) => hits.map((h) => h.chunkId));
  const model = provider && bases.length ? await embeddingModel(em) : null;
  const vectors = model && provider ? await questionVectors(em, provider, model, bases, queries, request.signal) : [];
  for (const vector of vectors) lists.push((await searchVectors(knex, scope, vector)).map((h) => h.chunkId));
  // One ranking keeps its own scores (BM25F); several are fused.
  const ranked = lists.length > 1 ? reciprocalRankFusion(lists) : texts[0]!.map((h) => ({ id: h.chunkId, score: h.score }));
  const scores = new Map(ranked.map((t) => [t.id, t.score]));
  const passages = await distinctPassages(ranked, request.topK, (ids) => passagesOf(knex, request.accountId, ids));
  return { passages: passages.map((p) => ({ ...p, score: scores.get(p.chunkId)! })), rewrites };
}

/** The question's rewordings, or why there are none (a query cancelled by its caller still fails). */
async function rewritesOf(request: RetrievalRequest): Promise<RewriteOutcome> {
  if (!request.rewrite) return { status: 'UNAVAILABLE', queries: [], reason: 'no AI gateway for this search' };
  try {
    const queries = await request.rewrite(request.query, request.signal);
    return queries.length
      ? { status: 'USED', queries, reason: null }
      : { status: 'UNAVAILABLE', queries: [], reason: 'the AI model gave no rewording' };
  } catch (error) {
    if (request.signal?.aborted) throw error;
    return { status: 'UNAVAILABLE', queries: [], reason: (error as Error).message.slice(0, 500) };
  }
}

/**
 * The embeddings of the queries (in one call), when some chunk of these knowledge bases has one and the provider is
 * not remembered as lacking `/embeddings`; none (text only) when it fails: a provider that is down or refuses never
 * fails a query.
 */
async function questionVectors(
  em: EntityManager,
  provider: AiProvider,
  model: AiModel,
  bases: SearchScope['bases'],
  queries: string[],
  signal?: AbortSignal,
): Promise<number[][]> {
  const knex = em.getKnex();
  if (
    !(await hasEmbeddings(
      knex,
      bases.map((b) => b.id),
    )) ||
    (await embeddingGap(knex, provider.endpoint, model.externalId))
  )
    return [];
  try {
    return (await provider.embed({ model: model.externalId, input: queries, signal })).vectors.slice(0, queries.length);
  } catch (error) {
    if (signal?.aborted) throw error;
    return [];
  }
}

/**
 * The first `topK` passages of the ranking whose text is not that of a better-ranked one: the same passage in two
 * documents (a manual copied into two places, a page imported twice under different URLs) is shown once, and the
 * next passage takes the place the copy would have had.
 */
async function distinctPassages(ranked: { id: string }[], topK: number, read: (ids: string[]) => Promise<Passage[]>): Promise<Passage[]> {
  const kept: Passage[] = [];
  const seen = new Set<string>();

  for (let from = 0; from < ranked.length && kept.length < topK;) {
    const ids = ranked.slice(from, from + 2 * (topK - kept.length)).map((r) => r.id);
    from += ids.length;
    for (const p of await read(ids)) {
      if (kept.length === topK || seen.has(p.text)) continue;
      seen.add(p.text);
      kept.push(p);
    }
  }
  return kept;
}
