/**
 * The embeddings state of a document revision (`embeddings`: READY, PENDING, UNAVAILABLE with `embeddings_reason`),
 * written beside its text index and never holding it back, and the providers remembered as lacking `/embeddings`
 * (`knowledge_embedding_gaps`, keyed by the provider's endpoint and the embedding model: AI settings that change
 * are a new key, tried again). Writes happen only while the revision is current, like the indexer's others.
 */
import type { Knex } from '@mikro-orm/postgresql';
import type { KnowledgeEmbeddingsStatus } from './knowledge-document.entity.js';

/** Sets the revision's embeddings state, when the revision is still current. */
export async function markEmbeddings(
  knex: Knex,
  documentId: string,
  revision: number,
  status: KnowledgeEmbeddingsStatus,
  reason: string | null = null,
): Promise<boolean> {
  const updated = await knex('knowledge_documents')
    .where({ id: documentId, revision })
    .update({ embeddings: status, embeddings_reason: reason?.slice(0, 2000) ?? null, updated_at: knex.fn.now() });
  return updated > 0;
}

/** Why this provider and model have no embeddings, when remembered so (null: try them). */
export async function embeddingGap(knex: Knex, endpoint: string, model: string): Promise<string | null> {
  const row = await knex('knowledge_embedding_gaps').where({ endpoint, model }).first('reason');
  return row?.reason ?? null;
}

/** Remembers that this provider answers `/embeddings` as missing (404, 405) for this model. */
export async function rememberEmbeddingGap(knex: Knex, endpoint: string, model: string, reason: string): Promise<void> {
  await knex.raw(
    `insert into knowledge_embedding_gaps (endpoint, model, reason, noted_at) values (?, ?, ?, now())
     on conflict (endpoint, model) do update set reason = excluded.reason, noted_at = excluded.noted_at`,
    [endpoint, model, reason.slice(0, 2000)],
  );
}
