import { EntitySchema } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
import { AgentResource } from '../agents/agent-resource.entity.js';
import { KnowledgeDocument } from './knowledge-document.entity.js';

/**
 * A passage of a document, as retrieval finds it: its heading path and position in the document, its text, the
 * full-text vector (`tsv`: headings weighted A, text B, in the knowledge base's language; written by SQL, never by the
 * ORM: the column is the migration's, outside the entity; the BM25F statistics its triggers keep are read instead of an index on it) and, when an embedding model is configured, its unit-length embedding as a portable `real[]` (pgvector scores
 * it when installed: `embedding::vector`). Rows belong to one revision of the document; a new revision replaces them.
 */
export class KnowledgeChunk {
  id!: string;
  account!: Account;
  knowledgeBase!: AgentResource;
  document!: KnowledgeDocument;
  revision!: number;
  position!: number;
  headingPath!: string[];
  text!: string;
  embedding?: number[] | null;
}

export const KnowledgeChunkSchema = new EntitySchema<KnowledgeChunk>({
  class: KnowledgeChunk,
  tableName: 'knowledge_chunks',
  uniques: [{ name: 'knowledge_chunks_document_position_unique', properties: ['document', 'revision', 'position'] }],
  indexes: [{ name: 'knowledge_chunks_base_index', properties: ['knowledgeBase'] }],
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    knowledgeBase: { kind: 'm:1', entity: () => AgentResource, deleteRule: 'cascade' },
    document: { kind: 'm:1', entity: () => KnowledgeDocument, deleteRule: 'cascade' },
    revision: { type: 'integer' },
    position: { type: 'integer' },
    headingPath: { type: 'text[]' },
    text: { type: 'text' },
    embedding: { type: 'unknown', columnType: 'real[]', nullable: true },
  },
});
