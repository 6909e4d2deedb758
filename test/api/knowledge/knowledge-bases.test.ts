/**
 * Knowledge bases end to end through the API, with the local OpenAI-compatible server's `/embeddings`: uploads of
 * PDF, DOCX and Markdown indexed by the Temporal workflow, queries that find the passage holding the answer, the same
 * bytes twice, deletion, URL imports, another account's knowledge base, and the inline `documents[]` still working.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import { harness, listen } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { textPdf } from '../../setup/test-pdf.js';
import { startFileServer } from '../../setup/file-server.js';
import { waitUntil } from '../../setup/runs.js';
import { issueAt, ok, refused, type Account } from '../agents/agent-calls.helpers.js';
import { docx, DOCX_TYPE, indexed, newKnowledgeBase, query, statisticsDrift, storedChunks, upload } from './knowledge.helpers.js';

const MANUAL = `# Kettle manual

## Safety

Never immerse the kettle base in water. Unplug it before cleaning.

## Descaling

- Fill the kettle with equal parts white vinegar and water.
- Boil once, leave it for an hour, then rinse twice.

## Warranty

The warranty covers manufacturing defects for 24 months from the date of purchase.
`;

describe('knowledge bases: documents, indexing and retrieval', function () {
  this.timeout(90_000);
  let a: Account;
  let kb: number;
  let ids: Record<string, string>;

  before(async () => {
    a = await newAccount();
    kb = await newKnowledgeBase(a);
    const docs = await upload(a, kb, [
      { name: 'returns.pdf', type: 'application/pdf', bytes: textPdf('Refunds: returns within 30 days.') },
      {
        name: 'shipping.docx',
        type: DOCX_TYPE,
        bytes: await docx([
          { style: 'Heading1', text: 'Shipping' },
          { text: 'Orders leave our warehouse within two business days.' },
          { style: 'Heading2', text: 'International delivery' },
          { text: 'Parcels to Canada arrive in seven to ten days with tracking.' },
        ]),
      },
      { name: 'kettle.md', type: 'text/markdown', bytes: Buffer.from(MANUAL) },
    ]);
    expect(docs.map((d) => d.status)).to.deep.equal(['PENDING', 'PENDING', 'PENDING']);
    ids = { pdf: docs[0]!.id, docx: docs[1]!.id, md: docs[2]!.id };
  });

  it('indexes PDF, DOCX and Markdown uploads, and answers each question with the passage that holds the answer first', async () => {
    const docs = await indexed(a, kb);
    expect(docs.map((d) => [d.title, d.status, d.failureReason])).to.deep.equal([
      ['returns.pdf', 'INDEXED', null],
      ['shipping.docx', 'INDEXED', null],
      ['kettle.md', 'INDEXED', null],
    ]);
    const [refund] = await query(a, kb, 'how many days do I have to return an item for a refund?');
    expect(refund).to.include({ documentId: ids.pdf, title: 'returns.pdf' });
    expect(refund!.text).to.contain('within 30 days');
    // "Shipping" and its subsection fit in one chunk: its heading path is the section's, the subsection's heading a line of its text.
    const [canada] = await query(a, kb, 'delivery time to Canada');
    expect(canada).to.deep.include({ documentId: ids.docx, headingPath: ['Shipping'] });
    expect(canada!.text).to.match(/two business days[\s\S]*International delivery[\s\S]*Parcels to Canada/);
    const [descale] = await query(a, kb, 'How do I descale it with vinegar?');
    expect(descale).to.deep.include({ documentId: ids.md, headingPath: ['Kettle manual', 'Descaling'] });
    expect(descale!.text).to.contain('white vinegar');
  });

  it('embeds every chunk through /embeddings and fuses the vector ranking: a question sharing no word with the passage finds it', async () => {
    const ai = harness().ai;
    const previous = ai.embed;
    // The test decides what is near what: "guarantee" means the warranty.
    ai.embed = (text) => (/warranty|guarantee/i.test(text) ? [1, 0, 0] : /vinegar/i.test(text) ? [0, 1, 0] : [0, 0, 1]);
    const { server, origin } = await listen({ ai: harness().aiProvider });
    try {
      const manuals = await newKnowledgeBase(a, 'Manuals');
      const [doc] = await upload(a, manuals, [{ name: 'kettle.md', type: 'text/markdown', bytes: Buffer.from(MANUAL) }]);
      await waitUntil(
        () => ok('GET', `/knowledge-bases/${manuals}/documents/${doc!.id}`, a.userKey),
        (d) => d.embeddings === 'READY',
        'the embeddings of kettle.md',
      );
      const missing = await harness()
        .orm.em.getKnex()('knowledge_chunks')
        .where('knowledge_base_id', manuals)
        .whereNull('embedding')
        .count({ n: '*' });
      expect(Number(missing[0]!.n)).to.equal(0);
      expect(ai.embedded.some((t) => t.includes('24 months'))).to.equal(true);
      // Text only (an API without a provider): no word in common, nothing found.
      expect(await query(a, manuals, 'what does the guarantee include')).to.deep.equal([]);
      const [fused] = await query(a, manuals, 'what does the guarantee include', 5, `${origin}/public/v1`);
      expect(fused).to.deep.include({ documentId: doc!.id, headingPath: ['Kettle manual', 'Warranty'] });
    } finally {
      ai.embed = previous;
      await new Promise((resolve) => (server as Server).close(resolve));
    }
  });

  it('adds nothing when the same bytes are uploaded again', async () => {
    const before = (await ok('GET', `/knowledge-bases/${kb}/documents`, a.userKey)).agentry.length;
    const [again] = await upload(a, kb, [{ name: 'copy-of-kettle.md', type: 'text/markdown', bytes: Buffer.from(MANUAL) }]);
    expect(again!.id).to.equal(ids.md);
    expect((await ok('GET', `/knowledge-bases/${kb}/documents`, a.userKey)).agentry).to.have.length(before);
    const res = await call('POST', `/knowledge-bases/${kb}/documents`, { key: a.userKey, body: { title: 'Same', content: MANUAL } });
    expect(res.status).to.equal(200);
    expect(res.body.id).to.equal(ids.md);
  });

  it('refuses a part under an undocumented field name with 400 naming it, storing nothing; "files" still uploads', async () => {
    const fresh = await newKnowledgeBase(a, 'Strict form');
    const md = (text: string) => new Blob([`# Note\n\n${text}`], { type: 'text/markdown' });
    const send = async (parts: [field: string, value: Blob | string, name?: string][]) => {
      const form = new FormData();
      for (const [field, value, name] of parts) {
        if (typeof value === 'string') form.append(field, value);
        else form.append(field, value, name);
      }
      const response = await fetch(`${harness().baseUrl}/knowledge-bases/${fresh}/documents/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.userKey}` },
        body: form,
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const cases: [field: string, parts: [string, Blob | string, string?][]][] = [
      ['file', [['file', md('under file'), 'a.md']]],
      [
        'other',
        [
          ['files', md('first, documented'), 'ok.md'],
          ['other', md('second'), 'b.md'],
        ],
      ],
      [
        'other',
        [
          ['other', 'a text field'],
          ['files', md('after the text field'), 'ok.md'],
        ],
      ],
      [
        'other',
        [
          ['files', md('before the text field'), 'ok.md'],
          ['other', 'a text field'],
        ],
      ],
      ['files', [['files', 'text where a file belongs']]],
    ];
    for (const [field, parts] of cases) {
      const res = await send(parts);
      const what = parts.map(([f, v]) => `${f}:${typeof v === 'string' ? 'text' : 'file'}`).join(', ');
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(issueAt(res.body, field).message, what).to.include(`"${field}"`);
      expect(res.body.message, what).to.include(`"${field}"`);
    }
    expect((await ok('GET', `/knowledge-bases/${fresh}/documents`, a.userKey)).agentry, 'nothing stored').to.deep.equal([]);
    const added = await send([['files', md('documented field'), 'kept.md']]);
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    expect((await ok('GET', `/knowledge-bases/${fresh}/documents`, a.userKey)).agentry.map((d: { title: string }) => d.title)).to.deep.equal([
      'kept.md',
    ]);
  });

  it('pages the documents with a cursor', async () => {
    const first = await ok('GET', `/knowledge-bases/${kb}/documents?limit=2`, a.userKey);
    const second = await ok('GET', `/knowledge-bases/${kb}/documents?limit=2&cursor=${first.nextCursor}`, a.userKey);
    const all = await ok('GET', `/knowledge-bases/${kb}/documents`, a.userKey);
    expect([...first.agentry, ...second.agentry].map((d: { id: string }) => d.id)).to.deep.equal(
      all.agentry.slice(0, 4).map((d: { id: string }) => d.id),
    );
  });

  it('imports a URL through the outbound policy and fails a URL that answers 404 with the reason', async () => {
    const files = await startFileServer({
      '/faq.html': {
        type: 'text/html',
        bytes: Buffer.from(
          '<html><head><title>x</title><script>var secret=1</script></head><body><h1>FAQ</h1><h2>Gift cards</h2><p>Gift cards never expire.</p></body></html>',
        ),
      },
    });
    try {
      const page = await ok('POST', `/knowledge-bases/${kb}/documents`, a.userKey, { url: `${files.origin}/faq.html`, title: 'FAQ' });
      const missing = await ok('POST', `/knowledge-bases/${kb}/documents`, a.userKey, { url: `${files.origin}/gone.html` });
      const docs = await indexed(a, kb);
      expect(docs.find((d) => d.id === page.id)).to.include({ status: 'INDEXED' });
      expect(docs.find((d) => d.id === missing.id)!.failureReason).to.match(/404/);
      const [hit] = await query(a, kb, 'do gift cards expire');
      expect(hit).to.deep.include({ documentId: page.id, headingPath: ['FAQ', 'Gift cards'] });
      expect(hit!.text).to.not.contain('secret');
    } finally {
      files.close();
    }
  });

  it('indexes a document of more than 500 chunks whole, its last passages found like its first', async () => {
    const big = await newKnowledgeBase(a, 'Parts catalogue');
    const parts = Array.from({ length: 620 }, (_, i) => `## Part ${i + 1}\n\nPart ${i + 1} fits the model ${i + 1} frame.`);
    const doc = await ok('POST', `/knowledge-bases/${big}/documents`, a.userKey, {
      title: 'Catalogue',
      content: ['# Catalogue', ...parts, '## Spare lids', 'Replacement lids ship in amber glass.'].join('\n\n'),
    });
    const [done] = await indexed(a, big, 60_000);
    expect(done).to.include({ id: doc.id, status: 'INDEXED', chunkCount: 621 });
    expect((await query(a, big, 'amber glass lids'))[0]).to.deep.include({ documentId: doc.id, headingPath: ['Catalogue', 'Spare lids'] });
    expect((await query(a, big, 'model 7 frame'))[0]).to.deep.include({ documentId: doc.id, headingPath: ['Catalogue', 'Part 7'] });
  });

  it("counts a document's first heading among the headings of every passage under sibling headings", async () => {
    // The page's title heading is a sibling of its sections (as in many HTML manuals): no section's path holds it.
    const doc = await ok('POST', `/knowledge-bases/${kb}/documents`, a.userKey, {
      title: 'coffee-notes',
      content: '## Espresso machine\n\nRead this first.\n\n## Cleaning\n\nRun a cycle with the descaling solution every month.',
    });
    await indexed(a, kb);
    const [hit] = await query(a, kb, 'espresso descaling');
    expect(hit).to.deep.include({ documentId: doc.id, headingPath: ['Cleaning'] });
  });

  it('forgets a deleted document: no chunk left, never retrieved again', async () => {
    await indexed(a, kb);
    expect(await storedChunks(ids.pdf)).to.be.greaterThan(0);
    await ok('DELETE', `/knowledge-bases/${kb}/documents/${ids.pdf}`, a.userKey, undefined, 204);
    expect(await storedChunks(ids.pdf)).to.equal(0);
    const hits = await query(a, kb, 'how many days do I have to return an item for a refund?');
    expect(hits.map((h) => h.documentId)).to.not.include(ids.pdf);
    await refused('GET', `/knowledge-bases/${kb}/documents/${ids.pdf}`, a.userKey, 404);
  });

  it("answers 404 for another account's knowledge base and documents, and never retrieves from it", async () => {
    const b = await newAccount();
    await refused('GET', `/knowledge-bases/${kb}/documents`, b.userKey, 404);
    await refused('GET', `/knowledge-bases/${kb}/documents/${ids.md}`, b.userKey, 404);
    await refused('POST', `/knowledge-bases/${kb}/query`, b.generalKey, 404, { query: 'warranty' });
    await refused('POST', `/knowledge-bases/${kb}/documents`, b.userKey, 404, { title: 'x', content: 'y' });
    await refused('DELETE', `/knowledge-bases/${kb}/documents/${ids.md}`, b.userKey, 404);
    const own = await newKnowledgeBase(b);
    expect(await query(b, own, 'warranty months')).to.deep.equal([]);
  });

  it("indexes the knowledge base's own documents[] and follows their changes", async () => {
    const inline = await newKnowledgeBase(a, 'Inline', { documents: [{ title: 'Opening hours', content: 'The shop opens at 9 on Saturdays.' }] });
    const [doc] = await indexed(a, inline);
    expect(doc).to.include({ title: 'Opening hours', status: 'INDEXED' });
    expect((await query(a, inline, 'open on saturdays'))[0]).to.include({ documentId: doc!.id });
    await ok('PUT', `/knowledge-bases/${inline}`, a.userKey, { documents: [{ title: 'Parking', content: 'Free parking behind the shop.' }] }, 200);
    const docs = await indexed(a, inline);
    expect(docs.map((d) => d.title)).to.deep.equal(['Parking']);
    expect(await query(a, inline, 'open on saturdays')).to.deep.equal([]);
    expect((await ok('GET', `/knowledge-bases/${inline}`, a.userKey)).documents).to.deep.equal([
      { title: 'Parking', content: 'Free parking behind the shop.' },
    ]);
  });

  it('keeps the BM25F statistics equal to a count made afresh from the chunks, through uploads, changes and deletions', async () => {
    await indexed(a, kb);
    const drift = await statisticsDrift(a.account.id);
    expect(drift.counted).to.be.greaterThan(50);
    expect(drift).to.deep.equal({ postings: 0, terms: 0, stats: 0, counted: drift.counted });
  });
});
