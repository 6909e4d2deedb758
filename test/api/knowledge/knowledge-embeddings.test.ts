/**
 * Indexing never waits on embeddings: with a provider that has no `/embeddings` (404) and with one that is down (503),
 * documents are INDEXED and answer queries at once; their embeddings have their own state. The provider without
 * `/embeddings` is remembered as such (no second call) until the AI settings change (here: the catalog's embedding
 * model); the one that is down is retried with backoff until its embeddings are READY.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import { harness, listen } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { waitUntil } from '../../setup/runs.js';
import { ok, type Account } from '../agents/agent-calls.helpers.js';
import { newKnowledgeBase, query } from './knowledge.helpers.js';

interface DocumentView {
  id: string;
  status: string;
  embeddings: string;
  embeddingsReason: string | null;
}

const document = (a: Account, kb: number, id: string) => ok('GET', `/knowledge-bases/${kb}/documents/${id}`, a.userKey) as Promise<DocumentView>;

async function settled(a: Account, kb: number, id: string, embeddings: string) {
  return waitUntil(
    () => document(a, kb, id),
    (d) => d.status === 'INDEXED' && d.embeddings === embeddings,
    `document ${id} INDEXED with embeddings ${embeddings}`,
    40_000,
  );
}

describe('knowledge bases: indexing without waiting on embeddings', function () {
  this.timeout(90_000);
  let a: Account;
  let model: { id: number; external_id: string };

  before(async () => {
    a = await newAccount();
    model = await harness().orm.em.getKnex()('ai_models').where({ type: 'EMBEDDING', is_default: true }).first('id', 'external_id');
  });

  after(async () => {
    // Back to the suite's settings: the embedding model restored and its remembered gap forgotten, as a settings change would.
    const knex = harness().orm.em.getKnex();
    harness().ai.embeddingsStatus = null;
    await knex('ai_models').where({ id: model.id }).update({ external_id: model.external_id });
    await knex('knowledge_embedding_gaps').delete();
  });

  it('makes documents searchable at once with a provider lacking /embeddings and with one that is down; both answer queries', async () => {
    const ai = harness().ai;
    const { server, origin } = await listen({ ai: harness().aiProvider });
    try {
      ai.embeddingsStatus = 404;
      const lacking = await newKnowledgeBase(a, 'Lacking embeddings');
      const first = await ok('POST', `/knowledge-bases/${lacking}/documents`, a.userKey, {
        title: 'Returns',
        content: 'Refunds: returns within 30 days.',
      });
      const refused = await settled(a, lacking, first.id, 'UNAVAILABLE');
      expect(refused.embeddingsReason).to.match(/no \/embeddings \(404\)/);
      // Remembered: the next document of any knowledge base does not call /embeddings again.
      const calls = ai.embeddingRequests;
      const second = await ok('POST', `/knowledge-bases/${lacking}/documents`, a.userKey, {
        title: 'Gift cards',
        content: 'Gift cards never expire.',
      });
      expect((await settled(a, lacking, second.id, 'UNAVAILABLE')).embeddingsReason).to.match(/no \/embeddings/);
      expect(ai.embeddingRequests).to.equal(calls);

      // Another embedding model is other AI settings: tried again. This provider is down.
      await harness().orm.em.getKnex()('ai_models').where({ id: model.id }).update({ external_id: 'another-embedding-model' });
      ai.embeddingsStatus = 503;
      const down = await newKnowledgeBase(a, 'Provider down');
      const doc = await ok('POST', `/knowledge-bases/${down}/documents`, a.userKey, {
        title: 'Shipping',
        content: 'Parcels to Canada arrive in seven days.',
      });
      await settled(a, down, doc.id, 'PENDING');
      await waitUntil(
        async () => ai.embeddingRequests,
        (n) => n > calls,
        'a call to /embeddings with the other model',
      );

      // Both knowledge bases answer now, through an API with the provider too (it is not asked: nothing has embeddings).
      for (const baseUrl of [undefined, `${origin}/public/v1`]) {
        expect((await query(a, lacking, 'how many days to return an item', 5, baseUrl))[0]).to.include({ documentId: first.id });
        expect((await query(a, down, 'delivery to Canada', 5, baseUrl))[0]).to.include({ documentId: doc.id });
      }

      // The provider comes back: the retries (with backoff) embed the chunks.
      ai.embeddingsStatus = null;
      await settled(a, down, doc.id, 'READY');
      expect(ai.embedded).to.include('Parcels to Canada arrive in seven days.');
      expect((await query(a, down, 'delivery to Canada', 5, `${origin}/public/v1`))[0]).to.include({ documentId: doc.id });
    } finally {
      ai.embeddingsStatus = null;
      await new Promise((resolve) => (server as Server).close(resolve));
    }
  });
});
