import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
import { AgentResource } from '../agents/agent-resource.entity.js';

export const KNOWLEDGE_DOCUMENT_STATUSES = ['PENDING', 'INDEXED', 'FAILED'] as const;

/**
 * PENDING until the indexing workflow has written the chunks of its current revision (text searchable from then on,
 * whatever its embeddings); FAILED with `failureReason`.
 */
export type KnowledgeDocumentStatus = (typeof KNOWLEDGE_DOCUMENT_STATUSES)[number];

export const KNOWLEDGE_EMBEDDINGS_STATUSES = ['READY', 'PENDING', 'UNAVAILABLE'] as const;

/**
 * The embeddings of a document's chunks, an enrichment beside its text index: PENDING while they are made (retried with
 * backoff while the provider is down), READY once every chunk has one, UNAVAILABLE with `embeddingsReason` (no
 * provider or embedding model, a provider without `/embeddings`, or retries spent). Retrieval fuses what exists.
 */
export type KnowledgeEmbeddingsStatus = (typeof KNOWLEDGE_EMBEDDINGS_STATUSES)[number];

export const KNOWLEDGE_DOCUMENT_SOURCES = ['INLINE', 'TEXT', 'FILE', 'URL'] as const;

/** INLINE: one of the knowledge base's `documents[]`; TEXT: posted text; FILE: an upload; URL: fetched by the indexer. */
export type KnowledgeDocumentSource = (typeof KNOWLEDGE_DOCUMENT_SOURCES)[number];

/**
 * A document of a knowledge base. Every change bumps `revision` and writes an outbox event in the same transaction;
 * the indexing workflow of that revision extracts `text`, writes the chunks and marks it INDEXED, and does nothing
 * when the revision has moved on or the document is gone (its chunks go with it, by cascade).
 */
export class KnowledgeDocument {
  id!: string;
  account!: Account;
  knowledgeBase!: AgentResource;
  title!: string;
  source!: KnowledgeDocumentSource;
  url?: string | null;
  fileName?: string | null;
  contentType?: string | null;
  /** The uploaded bytes (FILE) or the posted text (TEXT, INLINE), as received. */
  body?: Buffer | null;
  /** SHA-256 of the body (of the fetched bytes for URL documents once fetched): the same bytes twice are one document. */
  contentHash?: string | null;
  /** The extracted text the chunks were cut from. */
  text?: string | null;
  status: Opt<KnowledgeDocumentStatus> = 'PENDING';
  failureReason?: string | null;
  embeddings: Opt<KnowledgeEmbeddingsStatus> = 'PENDING';
  embeddingsReason?: string | null;
  revision: Opt<number> = 1;
  chunkCount: Opt<number> = 0;
  indexedAt?: Date | null;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const KnowledgeDocumentSchema = new EntitySchema<KnowledgeDocument>({
  class: KnowledgeDocument,
  tableName: 'knowledge_documents',
  checks: [
    { name: 'knowledge_documents_status_check', expression: "status in ('PENDING', 'INDEXED', 'FAILED')" },
    { name: 'knowledge_documents_embeddings_check', expression: "embeddings in ('READY', 'PENDING', 'UNAVAILABLE')" },
    { name: 'knowledge_documents_source_check', expression: "source in ('INLINE', 'TEXT', 'FILE', 'URL')" },
  ],
  indexes: [
    { name: 'knowledge_documents_base_index', properties: ['knowledgeBase', 'createdAt', 'id'] },
    {
      name: 'knowledge_documents_hash_unique',
      expression:
        'create unique index "knowledge_documents_hash_unique" on "knowledge_documents" ("knowledge_base_id", "content_hash") where "content_hash" is not null',
    },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    knowledgeBase: { kind: 'm:1', entity: () => AgentResource, deleteRule: 'cascade' },
    title: { type: 'text' },
    source: { type: 'text' },
    url: { type: 'text', nullable: true },
    fileName: { type: 'text', nullable: true },
    contentType: { type: 'text', nullable: true },
    body: { type: 'blob', nullable: true, lazy: true },
    contentHash: { type: 'text', nullable: true },
    text: { type: 'text', nullable: true, lazy: true },
    status: { type: 'text', default: 'PENDING' },
    failureReason: { type: 'text', nullable: true },
    embeddings: { type: 'text', default: 'PENDING' },
    embeddingsReason: { type: 'text', nullable: true },
    revision: { type: 'integer', default: 1 },
    chunkCount: { type: 'integer', default: 0 },
    indexedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
