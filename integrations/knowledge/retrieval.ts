/**
 * Finds the passages of an account's knowledge bases that answer a question: the full-text ranking, fused by
 * reciprocal rank fusion with the embedding ranking when the AI catalog has an embedding model, a provider is
 * configured and the knowledge bases' chunks have embeddings; otherwise the full-text ranking alone. Knowledge bases
 * of another account are never searched (they are not found, as if missing).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AgentResource, AiModel } from '../../db/entities/index.js';
import { knowledgeLanguage } from '../../db/knowledge/knowledge-index.js';
import { hasEmbeddings, passagesOf, searchText, searchVectors, type Passage, type SearchScope } from '../../db/knowledge/knowledge-search.js';
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
  let ranked: { id: string; score: number }[];
  if (
    model &&
    provider &&
    (await hasEmbeddings(
      knex,
      bases.map((b) => b.id),
    ))
  ) {
    const [vector] = (await provider.embed({ model: model.externalId, input: [request.query], signal: request.signal })).vectors;
    const near = await searchVectors(knex, scope, vector!);
    ranked = reciprocalRankFusion([text.map((h) => h.chunkId), near.map((h) => h.chunkId)]);
  } else ranked = text.map((h) => ({ id: h.chunkId, score: h.score }));
  const top = ranked.slice(0, request.topK);
  const passages = await passagesOf(
    knex,
    request.accountId,
    top.map((t) => t.id),
  );
  const scores = new Map(top.map((t) => [t.id, t.score]));
  return passages.map((p) => ({ ...p, score: scores.get(p.chunkId)! }));
}
