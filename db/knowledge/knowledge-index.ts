/**
 * What the indexing workflow's activities read and write. Every write names the document revision it is for and
 * happens only while that revision is current (the document row locked): a revision that moved on, or a document
 * deleted meanwhile, makes it a no-op, so no chunk outlives its document. Every write is idempotent: an activity
 * retried after a crash finds its rows and writes nothing twice.
 */
import type { Knex } from '@mikro-orm/postgresql';
import type { Chunk } from '../../lib/knowledge/chunking.js';
import { searchableText } from '../../lib/knowledge/search-text.js';

/** The text search configuration of a knowledge base (`values.language`), `english` by default. */
export const knowledgeLanguage = (values: Record<string, unknown> | null | undefined): string =>
  typeof values?.language === 'string' ? values.language : 'english';

/** A document revision as extraction reads it (null when the document is gone or the revision has moved on). */
export interface SourceDocument {
  accountId: number;
  knowledgeBaseId: number;
  title: string;
  source: string;
  url: string | null;
  fileName: string | null;
  contentType: string | null;
  body: Buffer | null;
  contentHash: string | null;
  status: string;
  language: string;
}

export async function sourceDocument(knex: Knex, documentId: string, revision: number): Promise<SourceDocument | null> {
  const row = await knex('knowledge_documents as d')
    .join('agent_resources as kb', 'kb.id', 'd.knowledge_base_id')
    .where({ 'd.id': documentId, 'd.revision': revision })
    .first(
      'd.account_id',
      'd.knowledge_base_id',
      'd.title',
      'd.source',
      'd.url',
      'd.file_name',
      'd.content_type',
      'd.body',
      'd.content_hash',
      'd.status',
      'kb.values',
    );
  if (!row) return null;
  return {
    accountId: row.account_id,
    knowledgeBaseId: row.knowledge_base_id,
    title: row.title,
    source: row.source,
    url: row.url,
    fileName: row.file_name,
    contentType: row.content_type,
    body: row.body,
    contentHash: row.content_hash,
    status: row.status,
    language: knowledgeLanguage(row.values),
  };
}

/**
 * Stores the extracted text and, for a URL, the fetched bytes' hash (left unset when another document of the
 * knowledge base holds the same bytes: both stay, the URL is what the user asked for). One statement: the update
 * locks the row and writes only while `revision` is current (false otherwise).
 */
export async function saveText(knex: Knex, documentId: string, revision: number, text: string, contentHash?: string): Promise<boolean> {
  const result = await knex.raw(
    `update knowledge_documents d set text = :body, updated_at = now(),
       content_hash = case when :hash::text is null or exists (select 1 from knowledge_documents o
         where o.knowledge_base_id = d.knowledge_base_id and o.content_hash = :hash and o.id <> d.id) then d.content_hash else :hash end
     where id = :id and revision = :revision`,
    { body: text, hash: contentHash ?? null, id: documentId, revision },
  );
  return (result.rowCount ?? 0) > 0;
}

/** The extracted text of the revision (null when gone or outdated). */
export async function savedText(knex: Knex, documentId: string, revision: number): Promise<{ text: string; title: string; language: string } | null> {
  const row = await knex('knowledge_documents as d')
    .join('agent_resources as kb', 'kb.id', 'd.knowledge_base_id')
    .where({ 'd.id': documentId, 'd.revision': revision })
    .first('d.text', 'd.title', 'kb.values');
  return row ? { text: row.text ?? '', title: row.title, language: knowledgeLanguage(row.values) } : null;
}

/** Chunks per insert statement (each statement's chunks update the statistics once, in the chunk triggers). */
const CHUNKS_PER_STATEMENT = 500;

/**
 * Writes the revision's chunks, with their full-text vectors (headings weighted A, with the document's lead heading
 * before them (`leadHeading`: a page's title, which its sections' headings may not repeat), the document title C,
 * split at `/ . _ @ -` so a file name's words count, the text B; code identifiers followed by their words,
 * `searchableText`),
 * removes those of other revisions and marks the revision INDEXED (text searchable; its embeddings PENDING unless
 * every chunk already has one), all while the revision is current. `source` is the revision's title and language
 * as `savedText` read them (neither changes within a revision) and its lead heading. A document of up to `CHUNKS_PER_STATEMENT` chunks is
 * one statement (one round trip, one commit: the row lock, the removal, the insert and the status are its CTEs);
 * a longer one is a transaction of such statements. Answers the count, or null when the revision is not current.
 */
export async function writeChunks(
  knex: Knex,
  documentId: string,
  revision: number,
  source: { title: string; language: string; lead?: string },
  chunks: Chunk[],
): Promise<number | null> {
  const rows = chunks.map((c) => ({
    position: c.position,
    heading_path: c.headingPath,
    text: c.text,
    heading_words: searchableText((source.lead && c.headingPath[0] !== source.lead ? [source.lead, ...c.headingPath] : c.headingPath).join(' \n ')),
    words: searchableText(c.text),
  }));
  const batches: (typeof rows)[] = [];
  for (let i = 0; i < rows.length; i += CHUNKS_PER_STATEMENT) batches.push(rows.slice(i, i + CHUNKS_PER_STATEMENT));
  if (!batches.length) batches.push([]);
  const write = async (db: Knex, batch: typeof rows, first: boolean, last: boolean) =>
    (
      await db.raw(
        `with doc as (select account_id, knowledge_base_id from knowledge_documents where id = :documentId and revision = :revision for update),
         ${first ? `gone as (delete from knowledge_chunks where document_id = :documentId and revision <> :revision and exists (select 1 from doc)),` : ''}
         t as (select setweight(to_tsvector(:language::regconfig, regexp_replace(:title, '[/._@-]+', ' ', 'g')), 'C') as title),
         added as (insert into knowledge_chunks (account_id, knowledge_base_id, document_id, revision, position, heading_path, text, tsv)
           select doc.account_id, doc.knowledge_base_id, :documentId, :revision, c.position, c.heading_path, c.text,
             setweight(to_tsvector(:language::regconfig, c.heading_words), 'A') || setweight(to_tsvector(:language::regconfig, c.words), 'B') || t.title
           from doc, t, json_to_recordset(:rows::json) as c(position int, heading_path text[], text text, heading_words text, words text)
           on conflict do nothing)
         ${
           last
             ? `update knowledge_documents d set status = 'INDEXED', failure_reason = null, indexed_at = now(), updated_at = now(), chunk_count = :count,
                  embeddings = case when :count = (select count(*) from knowledge_chunks e
                    where e.document_id = :documentId and e.revision = :revision and e.embedding is not null) then 'READY' else 'PENDING' end,
                  embeddings_reason = null
                from doc where d.id = :documentId returning 1`
             : 'select 1 from doc'
         }`,
        {
          documentId,
          revision,
          language: source.language,
          title: searchableText(source.title),
          rows: JSON.stringify(batch),
          count: rows.length,
        },
      )
    ).rows.length > 0;
  if (batches.length === 1) return (await write(knex, batches[0]!, true, true)) ? rows.length : null;
  return knex.transaction(async (trx) => {
    for (const [i, batch] of batches.entries()) if (!(await write(trx, batch, i === 0, i === batches.length - 1))) return null;
    return rows.length;
  });
}

/** Chunks of the revision still without an embedding, at most `limit`. */
export async function chunksToEmbed(
  knex: Knex,
  documentId: string,
  revision: number,
  limit: number,
): Promise<{ id: string; text: string; headingPath: string[] }[]> {
  const rows = await knex('knowledge_chunks')
    .where({ document_id: documentId, revision })
    .whereNull('embedding')
    .orderBy('position')
    .limit(limit)
    .select('id', 'text', 'heading_path');
  return rows.map((r) => ({ id: String(r.id), text: r.text, headingPath: r.heading_path }));
}

/** Stores unit-length embeddings (cosine similarity is then a dot product). */
export async function saveEmbeddings(knex: Knex, embeddings: { id: string; vector: number[] }[]): Promise<void> {
  if (!embeddings.length) return;
  const rows = embeddings.map((e) => ({ id: e.id, v: unit(e.vector) }));
  await knex.raw(
    `update knowledge_chunks c set embedding = array(select json_array_elements_text(r.v)::real)
     from json_to_recordset(?::json) as r(id bigint, v json) where c.id = r.id`,
    [JSON.stringify(rows)],
  );
}

export function unit(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / norm);
}

/**
 * INDEXED with its chunk count, when the revision is still current and not marked so yet (`writeChunks` marks it
 * with its chunks: then this writes nothing); its embeddings PENDING unless every chunk has one. One statement.
 */
export async function markIndexed(knex: Knex, documentId: string, revision: number): Promise<boolean> {
  const result = await knex.raw(
    `with u as (update knowledge_documents set status = 'INDEXED', failure_reason = null, indexed_at = now(), updated_at = now(),
         chunk_count = (select count(*) from knowledge_chunks where document_id = :id and revision = :revision),
         embeddings = case when exists (select 1 from knowledge_chunks where document_id = :id and revision = :revision and embedding is null)
           then 'PENDING' else 'READY' end, embeddings_reason = null
       where id = :id and revision = :revision and status <> 'INDEXED' returning 1)
     select exists (select 1 from u) or exists (select 1 from knowledge_documents where id = :id and revision = :revision) as current`,
    { id: documentId, revision },
  );
  return Boolean(result.rows[0]?.current);
}

/** Runs `write` with the document row locked when `revision` is current; false (nothing written) otherwise. */
async function whileCurrent(knex: Knex, documentId: string, revision: number, write: (trx: Knex.Transaction) => Promise<void>): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const locked = await trx.raw('select 1 from knowledge_documents where id = ? and revision = ? for update', [documentId, revision]);
    if (!locked.rows.length) return false;
    await write(trx);
    return true;
  });
}

/** FAILED with the reason, when the revision is still current; its chunks are removed (they are of no revision now). */
export async function markFailed(knex: Knex, documentId: string, revision: number, reason: string): Promise<boolean> {
  return whileCurrent(knex, documentId, revision, async (trx) => {
    await trx('knowledge_chunks').where('document_id', documentId).delete();
    await trx('knowledge_documents')
      .where({ id: documentId })
      .update({ status: 'FAILED', failure_reason: reason.slice(0, 2000), chunk_count: 0, updated_at: trx.fn.now() });
  });
}
