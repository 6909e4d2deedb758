/** Knowledge bases through the HTTP API: documents uploaded, posted and awaited until indexed; a DOCX built in memory. */
import JSZip from 'jszip';
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { call } from '../../setup/http.js';
import { quiet } from '../../setup/quiet.js';
import { waitUntil } from '../../setup/runs.js';
import { ok, type Account } from '../agents/agent-calls.helpers.js';

export async function newKnowledgeBase(a: Account, name = 'Handbook', extra: Record<string, unknown> = {}): Promise<number> {
  return (await ok('POST', '/knowledge-bases', a.userKey, { name, ...extra })).id;
}

/** Uploads files (multipart, under "files"); answers the documents. */
export async function upload(a: Account, kb: number, files: { name: string; type: string; bytes: Uint8Array }[], baseUrl = harness().baseUrl) {
  const form = new FormData();
  for (const f of files) form.append('files', new Blob([f.bytes], { type: f.type }), f.name);
  const response = await fetch(`${baseUrl}/knowledge-bases/${kb}/documents/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${a.userKey}` },
    body: form,
  });
  const body = (await response.json()) as { agentry: { id: string; status: string }[] };
  expect(response.status, JSON.stringify(body)).to.equal(201);
  return body.agentry;
}

/** Waits until no document of the knowledge base is PENDING; answers them all. */
export async function indexed(a: Account, kb: number, timeoutMs = 30_000) {
  return waitUntil(
    async () =>
      (await ok('GET', `/knowledge-bases/${kb}/documents?limit=500`, a.userKey)).agentry as {
        id: string;
        title: string;
        status: string;
        failureReason: string | null;
        chunkCount: number;
      }[],
    (docs) => docs.every((d) => d.status !== 'PENDING'),
    `the documents of knowledge base ${kb} to leave PENDING`,
    timeoutMs,
  );
}

export async function query(a: Account, kb: number, text: string, topK = 5, baseUrl?: string, filter?: unknown) {
  const res = await call('POST', `/knowledge-bases/${kb}/query`, {
    key: a.generalKey,
    body: { query: text, topK, ...(filter ? { filter } : {}) },
    baseUrl,
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.agentry as { chunkId: string; documentId: string; title: string; headingPath: string[]; text: string; score: number }[];
}

/** A DOCX of headed paragraphs (Heading1/Heading2 styles), as Word writes its main part. */
export async function docx(paragraphs: { style?: string; text: string }[]): Promise<Uint8Array> {
  const body = paragraphs
    .map(
      (p) =>
        `<w:p>${p.style ? `<w:pPr><w:pStyle w:val="${p.style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${p.text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</w:t></w:r></w:p>`,
    )
    .join('');
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'uint8array' });
}

/** The chunks stored for a document (none once it is deleted). */
export async function storedChunks(documentId: string): Promise<number> {
  return quiet(async () => Number((await harness().orm.em.getKnex()('knowledge_chunks').where('document_id', documentId).count({ n: '*' }))[0]!.n), {
    settleMs: 300,
  });
}

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * The BM25F statistics of the account's knowledge bases that differ from a count made afresh from their chunks'
 * tsvectors (postings, terms with chunks, stats rows: each in one and not the other), and the postings counted.
 */
export async function statisticsDrift(accountId: number): Promise<{ postings: number; terms: number; stats: number; counted: number }> {
  const sql = `with bases as (select id from agent_resources where account_id = :accountId and kind = 'KNOWLEDGE_BASE'),
    o as (select c.id, c.knowledge_base_id, x.lexeme,
        coalesce(cardinality(array_positions(x.weights, 'A')), 0) as ta, coalesce(cardinality(array_positions(x.weights, 'B')), 0) as tb,
        coalesce(cardinality(array_positions(x.weights, 'C')), 0) as tc
      from knowledge_chunks c cross join lateral unnest(c.tsv) x where c.knowledge_base_id in (select id from bases)),
    l as (select id, knowledge_base_id, sum(ta) as la, sum(tb) as lb, sum(tc) as lc from o group by 1, 2),
    p as (select o.knowledge_base_id, o.lexeme, o.id as chunk_id, o.ta, o.tb, o.tc, l.la, l.lb, l.lc from o join l using (id)),
    sp as (select knowledge_base_id, lexeme, chunk_id, ta, tb, tc, la, lb, lc from knowledge_postings where knowledge_base_id in (select id from bases)),
    t as (select knowledge_base_id, lexeme, count(*) as df from o group by 1, 2),
    st as (select knowledge_base_id, lexeme, df from knowledge_terms where knowledge_base_id in (select id from bases) and df <> 0),
    s as (select knowledge_base_id, count(*) as chunks, sum(la) as a, sum(lb) as b, sum(lc) as c from l group by 1),
    ss as (select knowledge_base_id, chunks, len_a as a, len_b as b, len_c as c from knowledge_base_stats
      where knowledge_base_id in (select id from bases) and chunks <> 0)
    select (select count(*) from ((select * from p except select * from sp) union all (select * from sp except select * from p)) x)::int as postings,
      (select count(*) from ((select * from t except select * from st) union all (select * from st except select * from t)) x)::int as terms,
      (select count(*) from ((select * from s except select * from ss) union all (select * from ss except select * from s)) x)::int as stats,
      (select count(*) from p)::int as counted`;
  return (await harness().orm.em.getKnex().raw(sql, { accountId })).rows[0];
}
