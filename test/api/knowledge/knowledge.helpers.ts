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
