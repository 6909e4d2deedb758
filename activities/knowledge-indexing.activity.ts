/**
 * The activities of `indexKnowledgeDocument`: extract the text of one document revision (downloading a URL through
 * the outbound address policy), cut it into chunks, mark the revision INDEXED (or FAILED), then embed its chunks when
 * an embedding model and a provider are configured, with a state of their own (READY, or UNAVAILABLE with the
 * reason: no provider, a provider remembered as lacking `/embeddings`, a permanent refusal, retries spent). Each is idempotent and a no-op once its revision is not
 * current (`db/knowledge/knowledge-index.ts`), so Temporal may run any of them again after a crash. Unreadable or
 * unsupported documents fail permanently (the workflow marks them FAILED with the reason); the network, the
 * provider and the database are retried.
 */
import type { Orm } from '../db/orm.js';
import {
  chunksToEmbed,
  markFailed,
  markIndexed,
  saveEmbeddings,
  savedText,
  saveText,
  sourceDocument,
  writeChunks,
} from '../db/knowledge/knowledge-index.js';
import { sha256 } from '../db/knowledge/knowledge-documents.service.js';
import { MAX_DOCUMENT_BYTES } from '../integrations/ai/document-text.js';
import { downloadFile } from '../integrations/ai/download.js';
import type { AiProvider } from '../integrations/ai/ai-provider.js';
import { extractDocument, formatOf, READ_FORMATS } from '../integrations/knowledge/document-extraction.js';
import { embeddingModel } from '../integrations/knowledge/retrieval.js';
import { AiRequestRefusedError } from '../integrations/ai/openai-compatible-provider.js';
import { embeddingGap, markEmbeddings, rememberEmbeddingGap } from '../db/knowledge/knowledge-embeddings.js';
import type { KnowledgeEmbeddingsStatus } from '../db/knowledge/knowledge-document.entity.js';
import { chunkText, leadHeading } from '../lib/knowledge/chunking.js';
import type { IndexDocumentInput, IndexStep } from '../lib/knowledge/indexing-contract.js';
import { NodeError } from '../lib/errors.js';
import type { OutboundFetch } from '../integrations/outbound/outbound-fetch.js';
import { toFailure } from './execute-node.activity.js';
import { heartbeating } from './heartbeating.js';

export interface KnowledgeActivityDeps {
  orm: Orm;
  provider: AiProvider | null;
  outbound: OutboundFetch;
  httpTimeoutMs: number;
}

/** Texts per `/embeddings` request. */
const EMBED_BATCH = 64;

/** Runs `work` with heartbeats (a dead worker is noticed within the heartbeat timeout) and permanent errors marked so. */
function beating<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return heartbeating(async (context) => {
    try {
      return await work(context.cancellationSignal);
    } catch (error) {
      throw toFailure(error, context.cancellationSignal.aborted);
    }
  });
}

export function createKnowledgeActivities({ orm, provider, outbound, httpTimeoutMs }: KnowledgeActivityDeps) {
  const knex = orm.em.getKnex();
  return {
    async extractKnowledgeText({ documentId, revision }: IndexDocumentInput): Promise<IndexStep> {
      return beating(async (signal) => {
        const doc = await sourceDocument(knex, documentId, revision);
        if (!doc) return { current: false };
        let bytes: Uint8Array;
        let contentType = doc.contentType;
        let fileName = doc.fileName ?? doc.title;
        if (doc.source === 'URL') {
          const file = await downloadFile(outbound, doc.url!, MAX_DOCUMENT_BYTES, signal, httpTimeoutMs);
          ({ bytes, contentType, fileName } = file);
        } else bytes = doc.body ?? Buffer.alloc(0);
        const format = doc.source === 'FILE' || doc.source === 'URL' ? formatOf(contentType, fileName) : 'markdown';
        if (!format) throw new NodeError(`${fileName} is ${contentType}: knowledge bases read ${READ_FORMATS}`, 'UnsupportedFile');
        const text = await extractDocument(bytes, format, fileName);
        const current = await saveText(knex, documentId, revision, text, doc.source === 'URL' ? sha256(bytes) : undefined);
        return current ? { current, count: text.length } : { current };
      });
    },

    async chunkKnowledgeText({ documentId, revision }: IndexDocumentInput): Promise<IndexStep> {
      return beating(async () => {
        const saved = await savedText(knex, documentId, revision);
        if (!saved) return { current: false };
        const count = await writeChunks(knex, documentId, revision, { ...saved, lead: leadHeading(saved.text) }, chunkText(saved.text));
        return count === null ? { current: false } : { current: true, count };
      });
    },

    /**
     * Embeds the revision's chunks that have no vector yet and marks its embeddings READY; UNAVAILABLE without a
     * provider or model, or when the provider refuses for good. A provider answering 404 or 405 on `/embeddings` is
     * remembered as lacking them (under its endpoint and the model), so no other document calls it again until the
     * AI settings change. A provider that is down throws: the workflow retries with backoff.
     */
    async embedKnowledgeDocument({ documentId, revision }: IndexDocumentInput): Promise<KnowledgeEmbeddingsStatus> {
      return beating(async (signal) => {
        const model = provider ? await embeddingModel(orm.em.fork()) : null;
        const unavailable = async (reason: string) => (
          await markEmbeddings(knex, documentId, revision, 'UNAVAILABLE', reason),
          'UNAVAILABLE' as const
        );
        if (!provider || !model) return unavailable('No embedding model and AI provider are configured (AI_BASE_URL, the catalog)');
        const gap = await embeddingGap(knex, provider.endpoint, model.externalId);
        if (gap) return unavailable(gap);
        for (;;) {
          const batch = await chunksToEmbed(knex, documentId, revision, EMBED_BATCH);
          if (!batch.length) break;
          const input = batch.map((c) => [...c.headingPath, c.text].join('\n'));
          let vectors: number[][];
          try {
            ({ vectors } = await provider.embed({ model: model.externalId, input, signal }));
          } catch (error) {
            if (!(error instanceof NodeError)) throw error;
            if (error instanceof AiRequestRefusedError && (error.status === 404 || error.status === 405)) {
              const reason = `The AI provider has no /embeddings (${error.status}): ${error.message}`;
              await rememberEmbeddingGap(knex, provider.endpoint, model.externalId, reason);
              return unavailable(reason);
            }
            return unavailable(error.message);
          }
          await saveEmbeddings(
            knex,
            batch.map((c, i) => ({ id: c.id, vector: vectors[i]! })),
          );
        }
        await markEmbeddings(knex, documentId, revision, 'READY');
        return 'READY';
      });
    },

    async markKnowledgeEmbeddingsUnavailable({ documentId, revision }: IndexDocumentInput, reason: string): Promise<boolean> {
      return markEmbeddings(knex, documentId, revision, 'UNAVAILABLE', reason);
    },

    /** Runs of before `knowledge-embeddings-apart`: embeds the revision's chunks that have no vector yet, before INDEXED. */
    async embedKnowledgeChunks({ documentId, revision }: IndexDocumentInput): Promise<IndexStep> {
      return beating(async (signal) => {
        const model = provider ? await embeddingModel(orm.em.fork()) : null;
        if (!provider || !model) return { current: true, count: 0 };
        let count = 0;
        for (;;) {
          const batch = await chunksToEmbed(knex, documentId, revision, EMBED_BATCH);
          if (!batch.length) return { current: true, count };
          const input = batch.map((c) => [...c.headingPath, c.text].join('\n'));
          const { vectors } = await provider.embed({ model: model.externalId, input, signal });
          await saveEmbeddings(
            knex,
            batch.map((c, i) => ({ id: c.id, vector: vectors[i]! })),
          );
          count += batch.length;
        }
      });
    },

    async markKnowledgeIndexed({ documentId, revision }: IndexDocumentInput): Promise<boolean> {
      return markIndexed(knex, documentId, revision);
    },

    async markKnowledgeFailed({ documentId, revision }: IndexDocumentInput, reason: string): Promise<boolean> {
      return markFailed(knex, documentId, revision, reason);
    },
  };
}
