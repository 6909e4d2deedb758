/**
 * Finds the passages of an account's knowledge bases that answer a question: the full-text ranking, fused by
 * reciprocal rank fusion with the embedding ranking when the AI catalog has an embedding model, a provider is
 * configured and the knowledge bases' chunks have embeddings (those that have them: documents whose embeddings are
 * PENDING or UNAVAILABLE are found by their text); otherwise, or when the provider fails, the full-text ranking alone. Knowledge bases
 * of another account are never searched (they are not found, as if missing).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AgentResource } from '../../db/agents/agent-resource.entity.js';
import { AiModel } from '../../db/catalogs/ai-model.entity.js';
import { knowledgeLanguage } from '../../db/knowledge/knowledge-index.js';
import { hasEmbeddings, passagesOf, searchText, searchVectors, type Passage, type SearchScope } from '../../db/knowledge/knowledge-search.js';
import { embeddingGap } from '../../db/knowledge/knowledge-embeddings.js';
import { reciprocalRankFusion } from '../../lib/knowledge/fusion.js';
import type { AiProvider } from '../ai/ai-provider.js';

export interface RetrievalRequest {
  accountId: number;
  knowledgeBaseIds: number[];
  query: string;
  topK: number;
  documentIds?: string[];
  signal?: AbortSignal;
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
export async function basesOf(em: EntityManager, accountId: number, ids: number[]): Promise<SearchScope['bases']> {
  if (!ids.length) return [];
  const found = await em.find(AgentResource, { account: accountId, kind: 'KNOWLEDGE_BASE', id: { $in: ids } }, { fields: ['id', 'values'] });
  return found.map((kb) => ({ id: kb.id, language: knowledgeLanguage(kb.values) }));
}

export async function retrieve(em: EntityManager, provider: AiProvider | null, request: RetrievalRequest): Promise<RetrievedPassage[]> {
  const knex = em.getKnex();
  const bases = await basesOf(em, request.accountId, request.knowledgeBaseIds);
  const scope: SearchScope = { accountId: request.accountId, bases, documentIds: request.documentIds, limit: Math.max(CANDIDATES, request.topK) };
  const text = await searchText(knex, scope, request.query);
  const model = provider && bases.length ? await embeddingModel(em) : null;
  const vector = model && provider ? await questionVector(em, provider, model, bases, request) : null;
  const ranked = vector
    ? reciprocalRankFusion([text.map((h) => h.chunkId), (await searchVectors(knex, scope, vector)).map((h) => h.chunkId)])
    : text.map((h) => ({ id: h.chunkId, score: h.score }));
  const scores = new Map(ranked.map((t) => [t.id, t.score]));
  const passages = await distinctPassages(ranked, request.topK, (ids) => passagesOf(knex, request.accountId, ids));
  return passages.map((p) => ({ ...p, score: scores.get(p.chunkId)! }));
}

/**
 * The question's embedding, when some chunk of these knowledge bases has one and the provider is not remembered as
 * lacking `/embeddings`; null (text only) when it fails: a provider that is down or refuses never fails a query.
 */
async function questionVector(em: EntityManager, provider: AiProvider, model: AiModel, bases: SearchScope['bases'], request: RetrievalRequest) {
  const knex = em.getKnex();
  if (
    !(await hasEmbeddings(
      knex,
      bases.map((b) => b.id),
    )) ||
    (await embeddingGap(knex, provider.endpoint, model.externalId))
  )
    return null;
  try {
    return (await provider.embed({ model: model.externalId, input: [request.query], signal: request.signal })).vectors[0] ?? null;
  } catch (error) {
    if (request.signal?.aborted) throw error;
    return null;
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
