/**
 * `/knowledge-bases/{id}/documents` and `/knowledge-bases/{id}/query` (extensions): a knowledge base's documents
 * (text, URL imports, uploaded files), each indexed by a Temporal workflow, and retrieval over them as agents see it.
 */
import {
  addDocument,
  deleteDocument,
  documentView,
  findDocument,
  findKnowledgeBase,
  listDocuments,
  type DocumentInput,
} from '../../../db/knowledge/knowledge-documents.service.js';
import { AiGateway } from '../../../integrations/ai/ai-gateway.js';
import type { AiProvider } from '../../../integrations/ai/ai-provider.js';
import { queryRewriter } from '../../../integrations/knowledge/query-rewrite.js';
import { retrieveWithRewrites } from '../../../integrations/knowledge/retrieval.js';
import { Reply, type RouteRegistry } from '../../route-registry.js';
import { PageQuerySchema } from '../../schemas/data.schema.js';
import {
  KnowledgeDocumentCreateSchema,
  KnowledgeDocumentListSchema,
  KnowledgeDocumentPageSchema,
  KnowledgeDocumentSchema,
  KnowledgeQueryResultSchema,
  KnowledgeQuerySchema,
  KnowledgeUploadForm,
} from '../../schemas/knowledge.schema.js';
import { readUploadedDocuments } from './knowledge-upload.js';

const tag = 'Knowledge bases (extension)';
const base = '/knowledge-bases/:id';
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } } };
const documentParams = {
  type: 'object',
  required: ['id', 'documentId'],
  properties: { ...idParams.properties, documentId: { type: 'string', maxLength: 64 } },
};
const one = { description: 'KnowledgeDocument', schema: KnowledgeDocumentSchema };

interface QueryBody {
  query: string;
  topK: number;
  filter?: { documentIds?: string[] };
}

export function knowledgeRoutes(api: RouteRegistry, ai: AiProvider | null): void {
  const gateway = ai ? new AiGateway(ai) : null;
  api.resource<{ id: number; documentId: string }>(`${base}/documents/:documentId`, async (em, accountId, p) =>
    findDocument(em, await findKnowledgeBase(em, accountId, p.id), p.documentId),
  );
  api.add<unknown, { limit: number; cursor?: string }, { id: number }>({
    method: 'get',
    path: `${base}/documents`,
    operationId: 'listKnowledgeBaseDocuments',
    scope: 'any',
    tag,
    summary: 'Documents of a knowledge base with their indexing status, oldest first',
    params: idParams,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [KnowledgeDocument], nextCursor }', schema: KnowledgeDocumentPageSchema } },
    handler: async ({ auth, em, params, query }) =>
      listDocuments(em, await findKnowledgeBase(em, auth.account.id, params.id), query.limit, query.cursor),
  });
  api.add<DocumentInput, unknown, { id: number }>({
    method: 'post',
    path: `${base}/documents`,
    operationId: 'createKnowledgeBaseDocument',
    scope: 'U',
    tag,
    summary: 'Adds a text document or imports a URL; PENDING until indexed (the same text again: 200 with the existing document)',
    params: idParams,
    body: KnowledgeDocumentCreateSchema,
    largeBody: true,
    status: 201,
    responses: {
      201: one,
      200: { description: 'The document with these bytes, already there (a URL: fetched again)', schema: KnowledgeDocumentSchema },
    },
    handler: async ({ auth, em, params, body }) => {
      const { document, created } = await addDocument(em, await findKnowledgeBase(em, auth.account.id, params.id), body);
      return created ? documentView(document) : new Reply(200, documentView(document));
    },
  });
  api.add<unknown, unknown, { id: number }>({
    method: 'post',
    path: `${base}/documents/files`,
    operationId: 'uploadKnowledgeBaseDocuments',
    scope: 'U',
    tag,
    summary: 'Uploads documents (multipart/form-data, under "files"): PDF, DOCX, HTML, Markdown, plain text; the same bytes again add nothing',
    params: idParams,
    multipart: KnowledgeUploadForm,
    status: 201,
    responses: { 201: { description: '{ agentry: [KnowledgeDocument] }, in the order sent', schema: KnowledgeDocumentListSchema } },
    handler: async ({ auth, em, params, headers, stream }) => {
      const kb = await findKnowledgeBase(em, auth.account.id, params.id);
      const files = await readUploadedDocuments({ headers, stream, form: KnowledgeUploadForm });
      const added = [];
      for (const file of files) added.push(documentView((await addDocument(em, kb, { file })).document));
      return { agentry: added };
    },
  });
  api.add<unknown, unknown, { id: number; documentId: string }>({
    method: 'get',
    path: `${base}/documents/:documentId`,
    operationId: 'getKnowledgeBaseDocument',
    scope: 'any',
    tag,
    summary: 'One document of a knowledge base',
    params: documentParams,
    responses: { 200: one },
    handler: async ({ auth, em, params }) =>
      documentView(await findDocument(em, await findKnowledgeBase(em, auth.account.id, params.id), params.documentId)),
  });
  api.add<unknown, unknown, { id: number; documentId: string }>({
    method: 'delete',
    path: `${base}/documents/:documentId`,
    operationId: 'deleteKnowledgeBaseDocument',
    scope: 'U',
    tag,
    summary: 'Deletes a document and its chunks: retrieval no longer finds it',
    params: documentParams,
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ auth, em, params }) =>
      deleteDocument(em, await findDocument(em, await findKnowledgeBase(em, auth.account.id, params.id), params.documentId)),
  });
  api.add<QueryBody, unknown, { id: number }>({
    method: 'post',
    path: `${base}/query`,
    operationId: 'queryKnowledgeBase',
    scope: 'any',
    tag,
    summary:
      'The passages an agent would retrieve for a question: full text, fused with embeddings when configured and with ' +
      "the question's rewordings when the knowledge base has multiQuery on",
    params: idParams,
    body: KnowledgeQuerySchema,
    responses: {
      200: { description: '{ agentry: [KnowledgePassage], rewrites: KnowledgeQueryRewrites }, best first', schema: KnowledgeQueryResultSchema },
    },
    handler: async ({ auth, em, params, body }) => {
      const kb = await findKnowledgeBase(em, auth.account.id, params.id);
      const { passages, rewrites } = await retrieveWithRewrites(em, ai, {
        accountId: auth.account.id,
        knowledgeBaseIds: [kb.id],
        query: body.query,
        topK: body.topK,
        documentIds: body.filter?.documentIds,
        rewrite: queryRewriter(gateway, em, auth.account.id),
      });
      return { agentry: passages, rewrites };
    },
  });
}
