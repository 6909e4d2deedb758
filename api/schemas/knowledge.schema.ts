/** Documents of a knowledge base and its query (extensions): request and response schemas. */
import {
  KNOWLEDGE_DOCUMENT_SOURCES,
  KNOWLEDGE_DOCUMENT_STATUSES,
  KNOWLEDGE_EMBEDDINGS_STATUSES,
} from '../../db/knowledge/knowledge-document.entity.js';
import type { JsonSchema } from '../validation.js';
import { page } from './agents.schema.js';

/** PostgreSQL's text search configurations (`pg_ts_config` of PostgreSQL 15): a knowledge base's `language`. */
export const KNOWLEDGE_LANGUAGES = [
  'simple', 'arabic', 'armenian', 'basque', 'catalan', 'danish', 'dutch', 'english', 'finnish', 'french', 'german', 'greek', 'hindi',
  'hungarian', 'indonesian', 'irish', 'italian', 'lithuanian', 'nepali', 'norwegian', 'portuguese', 'romanian', 'russian', 'serbian',
  'spanish', 'swedish', 'tamil', 'turkish', 'yiddish',
] as const; // prettier-ignore

const title = { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' };
const nullableString = { type: ['string', 'null'] };

export const KnowledgeDocumentSchema: JsonSchema = {
  $id: 'KnowledgeDocument',
  type: 'object',
  required: ['id', 'knowledgeBaseId', 'title', 'source', 'status', 'embeddings', 'revision', 'chunkCount', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    knowledgeBaseId: { type: 'integer' },
    title: { type: 'string' },
    source: { enum: [...KNOWLEDGE_DOCUMENT_SOURCES], description: "INLINE: one of the knowledge base's documents[]" },
    url: nullableString,
    fileName: nullableString,
    contentType: nullableString,
    contentHash: { ...nullableString, description: 'SHA-256 of the bytes; the same bytes twice are one document' },
    status: { enum: [...KNOWLEDGE_DOCUMENT_STATUSES] },
    failureReason: nullableString,
    embeddings: {
      enum: [...KNOWLEDGE_EMBEDDINGS_STATUSES],
      description:
        "The chunks' embeddings, made after the text is searchable: READY, PENDING (retried while the provider is down), UNAVAILABLE (see embeddingsReason)",
    },
    embeddingsReason: {
      ...nullableString,
      description: 'Why embeddings are UNAVAILABLE (no embedding model or provider, a provider without /embeddings, retries spent)',
    },
    revision: { type: 'integer', description: 'Grows with each change; each revision is indexed once' },
    chunkCount: { type: 'integer' },
    indexedAt: nullableString,
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
};

export const KnowledgeDocumentPageSchema = page(KnowledgeDocumentSchema);

export const KnowledgeDocumentCreateSchema: JsonSchema = {
  $id: 'KnowledgeDocumentCreate',
  description: 'Text ({ title, content }) or a URL to import ({ url, title? }); files go to POST .../documents/files',
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['title', 'content'],
      properties: { title, content: { type: 'string', minLength: 1, maxLength: 2_000_000 } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: { title, url: { type: 'string', format: 'uri', maxLength: 2048, pattern: '^https?://' } },
    },
  ],
};

/** The upload's parts: `files` only; a part under any other name is refused (api/multipart-upload.ts reads this). */
export const KnowledgeUploadForm: JsonSchema = {
  type: 'object',
  required: ['files'],
  additionalProperties: false,
  properties: {
    files: {
      type: 'array',
      items: { type: 'string', format: 'binary' },
      description: 'One part per document (at most 20, each at most 20 MB): PDF, DOCX, HTML, Markdown or plain text',
    },
  },
};

export const KnowledgeDocumentListSchema: JsonSchema = {
  type: 'object',
  required: ['agentry'],
  properties: { agentry: { type: 'array', items: KnowledgeDocumentSchema } },
};

export const KnowledgeQuerySchema: JsonSchema = {
  $id: 'KnowledgeQuery',
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 2000, pattern: '\\S' },
    topK: { type: 'integer', minimum: 1, maximum: 50, default: 5 },
    filter: {
      type: 'object',
      additionalProperties: false,
      properties: { documentIds: { type: 'array', maxItems: 200, items: { type: 'string', format: 'uuid' } } },
    },
  },
};

export const KnowledgePassageSchema: JsonSchema = {
  $id: 'KnowledgePassage',
  type: 'object',
  required: ['chunkId', 'score', 'documentId', 'title', 'headingPath', 'position', 'text'],
  properties: {
    chunkId: { type: 'string' },
    score: {
      type: 'number',
      description:
        "The BM25F score (text alone, the question alone) or the reciprocal rank fusion score (with embeddings or the question's rewordings)",
    },
    documentId: { type: 'string', format: 'uuid' },
    title: { type: 'string' },
    headingPath: { type: 'array', items: { type: 'string' } },
    position: { type: 'integer' },
    text: { type: 'string' },
  },
};

export const KnowledgeQueryRewritesSchema: JsonSchema = {
  $id: 'KnowledgeQueryRewrites',
  type: 'object',
  required: ['status', 'queries', 'reason'],
  description: "What multi-query (the knowledge base's multiQuery) did for this question",
  properties: {
    status: {
      enum: ['OFF', 'USED', 'UNAVAILABLE'],
      description:
        'OFF: multiQuery is off; USED: the rewordings in queries were searched too; UNAVAILABLE: the question alone was searched (see reason)',
    },
    queries: { type: 'array', items: { type: 'string' }, description: 'The rewordings searched besides the question' },
    reason: { ...nullableString, description: 'Why no rewording was used (no AI provider, its failure or timeout, no credits)' },
  },
};

export const KnowledgeQueryResultSchema: JsonSchema = {
  type: 'object',
  required: ['agentry', 'rewrites'],
  properties: { agentry: { type: 'array', items: KnowledgePassageSchema }, rewrites: KnowledgeQueryRewritesSchema },
};
