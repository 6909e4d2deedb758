/**
 * Documents of a knowledge base (`/knowledge-bases/{id}/documents`): posted text, uploaded files and URL imports,
 * besides the knowledge base's own `documents[]` (kept in step as INLINE documents). Adding or changing a document
 * writes its row and a KNOWLEDGE_INDEX outbox event in one transaction; the same bytes twice in one knowledge base
 * are one document (SHA-256), so posting them again answers the existing one and indexes nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { KNOWLEDGE_INDEX_EVENT, type IndexDocumentInput } from '../../lib/knowledge/indexing-contract.js';
import { knowledgeLanguage } from './knowledge-index.js';
import { Account } from '../accounts/account.entity.js';
import { AgentResource } from '../agents/agent-resource.entity.js';
import { KnowledgeDocument, type KnowledgeDocumentSource } from './knowledge-document.entity.js';
import { OutboxEvent } from '../automations/outbox-event.entity.js';

/** What a new document is made of: text, an uploaded file, or a URL to fetch. */
export type DocumentInput =
  | { title: string; content: string }
  | { title?: string; file: { bytes: Uint8Array; fileName: string; contentType: string } }
  | { title?: string; url: string };

export const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

export function documentView(d: KnowledgeDocument) {
  return {
    id: d.id,
    knowledgeBaseId: d.knowledgeBase.id,
    title: d.title,
    source: d.source,
    url: d.url ?? null,
    fileName: d.fileName ?? null,
    contentType: d.contentType ?? null,
    contentHash: d.contentHash ?? null,
    status: d.status,
    failureReason: d.failureReason ?? null,
    embeddings: d.embeddings,
    embeddingsReason: d.embeddingsReason ?? null,
    revision: d.revision,
    chunkCount: d.chunkCount,
    indexedAt: d.indexedAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

/** The knowledge base `id` of the account; another account's is not found, like a missing one. */
export async function findKnowledgeBase(em: EntityManager, accountId: number, id: number): Promise<AgentResource> {
  const kb = await em.findOne(AgentResource, { id, account: accountId, kind: 'KNOWLEDGE_BASE' });
  if (!kb) throw new NotFoundError(`Knowledge base ${id} not found`);
  return kb;
}

export async function findDocument(em: EntityManager, kb: AgentResource, documentId: string): Promise<KnowledgeDocument> {
  const doc = /^[0-9a-f-]{36}$/i.test(documentId) ? await em.findOne(KnowledgeDocument, { id: documentId, knowledgeBase: kb.id }) : null;
  if (!doc) throw new NotFoundError(`Document ${documentId} not found in knowledge base ${kb.id}`);
  return doc;
}

/** Writes the event that indexes `doc` at its current revision (in the caller's transaction). */
function indexLater(em: EntityManager, doc: KnowledgeDocument): void {
  const payload: IndexDocumentInput = { accountId: doc.account.id, documentId: doc.id, revision: doc.revision };
  em.create(OutboxEvent, { account: doc.account, type: KNOWLEDGE_INDEX_EVENT, payload: { ...payload } });
}

/** Marks `doc` changed: a new revision, PENDING, indexed again. */
export function reindex(em: EntityManager, doc: KnowledgeDocument): void {
  doc.revision += 1;
  doc.status = 'PENDING';
  doc.failureReason = null;
  indexLater(em, doc);
}

function sourceOf(
  input: DocumentInput,
): { source: KnowledgeDocumentSource; title: string; body: Buffer | null; hash: string | null } & Partial<KnowledgeDocument> {
  if ('content' in input) {
    const body = Buffer.from(input.content, 'utf8');
    return { source: 'TEXT', title: input.title.trim(), body, hash: sha256(body), contentType: 'text/markdown' };
  }
  if ('file' in input) {
    const { bytes, fileName, contentType } = input.file;
    return { source: 'FILE', title: input.title?.trim() || fileName, body: Buffer.from(bytes), hash: sha256(bytes), fileName, contentType };
  }
  // A URL's bytes are known once fetched: the indexer sets the hash; until then the URL itself is the document.
  return { source: 'URL', title: input.title?.trim() || input.url, body: null, hash: null, url: input.url };
}

/**
 * Adds a document (or answers the one with the same bytes, `created: false`). Posting a URL already in the knowledge
 * base fetches it again: a new revision, which keeps its chunks only if the bytes are the same.
 */
export async function addDocument(
  em: EntityManager,
  kb: AgentResource,
  input: DocumentInput,
): Promise<{ document: KnowledgeDocument; created: boolean }> {
  const { source, title, body, hash, ...rest } = sourceOf(input);
  if (!title) throw new BadRequestError('title must not be empty', 'title');
  return em.transactional(async (tx) => {
    await tx.execute('select 1 from agent_resources where id = ? for update', [kb.id]);
    const same = hash
      ? await tx.findOne(KnowledgeDocument, { knowledgeBase: kb.id, contentHash: hash })
      : await tx.findOne(KnowledgeDocument, { knowledgeBase: kb.id, source: 'URL', url: rest.url! });
    if (same && hash) return { document: same, created: false };
    if (same) {
      reindex(tx, same);
      return { document: same, created: false };
    }
    const document = tx.create(KnowledgeDocument, {
      id: randomUUID(),
      account: tx.getReference(Account, kb.account.id),
      knowledgeBase: tx.getReference(AgentResource, kb.id),
      title: title.slice(0, 255),
      source,
      body,
      contentHash: hash,
      ...rest,
    });
    indexLater(tx, document);
    return { document, created: true };
  });
}

/** Removes a document; its chunks go with it (cascade), and an indexing workflow still running finds it gone. */
export async function deleteDocument(em: EntityManager, doc: KnowledgeDocument): Promise<void> {
  await em.nativeDelete(KnowledgeDocument, { id: doc.id });
}

interface Cursor {
  at: string;
  id: string;
}

/** One page of a knowledge base's documents, oldest first, keyed by (createdAt, id). */
export async function listDocuments(em: EntityManager, kb: AgentResource, limit: number, cursor?: string) {
  let after: Cursor | null = null;
  if (cursor) {
    try {
      after = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as Cursor;
      if (typeof after.at !== 'string' || typeof after.id !== 'string' || Number.isNaN(Date.parse(after.at))) throw new Error();
    } catch {
      throw new BadRequestError('Invalid cursor', [{ code: 'invalid', path: 'query.cursor', message: 'is not a cursor of this list' }]);
    }
  }
  const where = after
    ? { knowledgeBase: kb.id, $or: [{ createdAt: { $gt: new Date(after.at) } }, { createdAt: new Date(after.at), id: { $gt: after.id } }] }
    : { knowledgeBase: kb.id };
  const rows = await em.find(KnowledgeDocument, where, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last ? Buffer.from(JSON.stringify({ at: last.createdAt.toISOString(), id: last.id })).toString('base64url') : null;
  return { agentry: page.map(documentView), nextCursor };
}

/**
 * After a knowledge base is written (in its transaction): its INLINE documents follow `documents[]`, and a new
 * `language` indexes every document again (the full-text vectors are language-specific).
 */
export async function syncKnowledgeBase(em: EntityManager, kb: AgentResource, languageBefore?: string): Promise<void> {
  if (languageBefore !== undefined && languageBefore !== knowledgeLanguage(kb.values))
    for (const doc of await em.find(KnowledgeDocument, { knowledgeBase: kb.id })) reindex(em, doc);
  await syncInlineDocuments(em, kb);
}

/** The INLINE documents a knowledge base's `documents[]` holds: added when new, removed when gone (by content hash). */
async function syncInlineDocuments(em: EntityManager, kb: AgentResource): Promise<void> {
  const wanted = Array.isArray(kb.values.documents) ? (kb.values.documents as { title: string; content: string }[]) : [];
  const byHash = new Map(wanted.map((d) => [sha256(`${d.title}\n${d.content}`), d]));
  const existing = await em.find(KnowledgeDocument, { knowledgeBase: kb.id, source: 'INLINE' });
  for (const doc of existing) if (!byHash.delete(doc.contentHash ?? '')) em.remove(doc);
  for (const [hash, d] of byHash) {
    const taken = await em.findOne(KnowledgeDocument, { knowledgeBase: kb.id, contentHash: hash });
    if (taken) continue;
    const document = em.create(KnowledgeDocument, {
      id: randomUUID(),
      account: em.getReference(Account, kb.account.id),
      knowledgeBase: em.getReference(AgentResource, kb.id),
      title: d.title,
      source: 'INLINE',
      body: Buffer.from(d.content, 'utf8'),
      contentHash: hash,
      contentType: 'text/markdown',
    });
    indexLater(em, document);
  }
  await em.flush();
}
