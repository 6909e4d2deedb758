/**
 * Multi-query retrieval (a knowledge base's `multiQuery`), through the HTTP API against the local OpenAI-compatible
 * server: a question asked in words no document uses finds its answer only through the rewordings the chat model
 * writes, with the call charged like any AI call; with the setting off nothing is asked and the answer is not found;
 * a provider that fails, answers too late, cannot be paid or is missing leaves the question alone (the same passages as with the
 * setting off).
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import { aiProviderFrom } from '../../../integrations/ai/openai-compatible-provider.js';
import { AiGateway } from '../../../integrations/ai/ai-gateway.js';
import { recordedQueryRewriter, REWRITE_TIMEOUT_MS } from '../../../integrations/knowledge/query-rewrite.js';
import { harness, listen } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { ok, refused, type Account } from '../agents/agent-calls.helpers.js';
import { indexed, newKnowledgeBase } from './knowledge.helpers.js';

interface QueryResult {
  agentry: { chunkId: string; documentId: string; title: string }[];
  rewrites: { status: string; queries: string[]; reason: string | null };
}

const QUESTION = 'How can I get my money back for something I bought?';
const REWORDINGS = ['refund policy', 'reimbursement of returned merchandise', 'return an item for a refund'];

/** The answer (it shares no word with the question) and documents that do share its words. */
const DOCUMENTS = [
  { title: 'Refunds', content: 'Refund policy. Returned merchandise is reimbursed to the original payment method within fourteen days of receipt.' },
  { title: 'Gift cards', content: 'Money loaded on a gift card never expires. Gift cards can be bought in any store.' },
  { title: 'Getting started', content: 'Get the app, then sign in: you can get going in a minute.' },
  { title: 'Back office', content: 'The back office is open on weekdays. Call back later when it is closed.' },
  { title: 'Best sellers', content: 'What customers bought most this month: something for every budget.' },
  { title: 'Savings', content: 'Save money with the yearly plan; money saved is shown on every invoice.' },
  { title: 'Orders', content: 'Every order you bought online is listed under Orders, something you can print.' },
];

async function ask(a: Account, kb: number, baseUrl?: string): Promise<QueryResult> {
  const res = await call('POST', `/knowledge-bases/${kb}/query`, { key: a.generalKey, body: { query: QUESTION, topK: 5 }, baseUrl });
  expect(res.status, res.text).to.equal(200);
  return res.body as QueryResult;
}

const balanceOf = async (accountId: number) =>
  Number((await harness().orm.em.getKnex()('accounts').where({ id: accountId }).first('credit_balance')).credit_balance);

describe('knowledge bases: multi-query retrieval', function () {
  this.timeout(90_000);
  let a: Account;
  let kb: number;
  let answer: string;
  let plain: QueryResult;
  let server: Server;
  let withProvider: string;

  before(async () => {
    const ai = harness().ai;
    // Text retrieval only: the fake server's hashed embeddings would add a ranking of their own to what is compared.
    ai.embeddingsStatus = 404;
    ({ server, origin: withProvider } = await listen({ ai: harness().aiProvider }));
    withProvider += '/public/v1';
    a = await newAccount();
    kb = await newKnowledgeBase(a, 'Shop help');
    expect(await ok('GET', `/knowledge-bases/${kb}`, a.userKey)).to.include({ multiQuery: false });
    for (const d of DOCUMENTS) await ok('POST', `/knowledge-bases/${kb}/documents`, a.userKey, d);
    const docs = await indexed(a, kb);
    expect(docs.map((d) => d.status)).to.deep.equal(DOCUMENTS.map(() => 'INDEXED'));
    answer = docs.find((d) => d.title === 'Refunds')!.id;
    await harness().orm.em.getKnex()('accounts').where({ id: a.account.id }).update({ credit_balance: 100 });
  });

  after(async () => {
    harness().ai.embeddingsStatus = null;
    await harness().orm.em.getKnex()('knowledge_embedding_gaps').delete();
    await new Promise((resolve) => server.close(resolve));
  });

  it('with multiQuery off asks no model, and the answer to a question in other words is not among the results', async () => {
    harness().ai.script();
    plain = await ask(a, kb, withProvider);
    expect(plain.rewrites).to.deep.equal({ status: 'OFF', queries: [], reason: null });
    expect(plain.agentry.length, 'documents sharing the question’s words are found').to.be.greaterThan(0);
    expect(plain.agentry.map((p) => p.documentId)).not.to.include(answer);
    expect(harness().ai.chats).to.have.length(0);
  });

  it('with multiQuery on finds it through the rewordings, says which were used and charges the call', async () => {
    const ai = harness().ai;
    const text = await harness().orm.em.getKnex()('ai_models').where({ type: 'TEXT', is_default: true }).first('external_id', 'credits_per_message');
    expect((await ok('PUT', `/knowledge-bases/${kb}`, a.userKey, { multiQuery: true })).multiQuery).to.equal(true);
    await refused('PUT', `/knowledge-bases/${kb}`, a.userKey, 400, { multiQuery: 'yes' }).then((body) =>
      expect(JSON.stringify(body)).to.match(/multiQuery/),
    );
    const before = await balanceOf(a.account.id);
    ai.script({ content: JSON.stringify({ queries: REWORDINGS }) });

    const result = await ask(a, kb, withProvider);
    expect(result.rewrites).to.deep.equal({ status: 'USED', queries: REWORDINGS, reason: null });
    expect(result.agentry[0]).to.include({ documentId: answer });
    expect(ai.chats).to.have.length(1);
    const sent = ai.chats[0]!.body as { model: string; messages: { role: string; content: string }[] };
    expect(sent.model).to.equal(text.external_id);
    expect(sent.messages.at(-1)).to.deep.equal({ role: 'user', content: QUESTION });
    expect(await balanceOf(a.account.id)).to.equal(before - Number(text.credits_per_message));
  });

  it('with multiQuery on and a provider that fails, is too slow, unpaid or missing, answers the question alone and says why', async () => {
    const ai = harness().ai;
    const before = await balanceOf(a.account.id);
    ai.script({ status: 500 });
    const failed = await ask(a, kb, withProvider);
    expect(failed.rewrites).to.include({ status: 'UNAVAILABLE' });
    expect(failed.rewrites.queries).to.deep.equal([]);
    expect(failed.rewrites.reason).to.match(/500/);
    expect(failed.agentry).to.deep.equal(plain.agentry);
    expect(await balanceOf(a.account.id), 'the failed call’s credits are given back').to.equal(before);

    // A balance that cannot pay for the call: it is not made.
    await harness().orm.em.getKnex()('accounts').where({ id: a.account.id }).update({ credit_balance: 0 });
    ai.script({ content: JSON.stringify({ queries: REWORDINGS }) });
    const unpaid = await ask(a, kb, withProvider);
    expect(unpaid.rewrites.reason).to.match(/^Insufficient credits/);
    expect(unpaid.agentry).to.deep.equal(plain.agentry);
    expect(ai.chats).to.have.length(0);
    await harness().orm.em.getKnex()('accounts').where({ id: a.account.id }).update({ credit_balance: 100 });

    // An answer with no usable rewording (only the question again) leaves the question alone too.
    ai.script({ content: JSON.stringify({ queries: [QUESTION, ' '] }) });
    const empty = await ask(a, kb, withProvider);
    expect(empty.rewrites).to.deep.equal({ status: 'UNAVAILABLE', queries: [], reason: 'the AI model gave no rewording' });
    expect(empty.agentry).to.deep.equal(plain.agentry);

    // A provider slower than the rewrite's bound (its own timeout is a minute, as shipped).
    const slow = await listen({ ai: aiProviderFrom({ baseUrl: ai.baseUrl, apiKey: 'test-ai-key' }) });
    try {
      ai.script({ content: JSON.stringify({ queries: REWORDINGS }), delayMs: REWRITE_TIMEOUT_MS + 1_000 });
      const started = Date.now();
      const late = await ask(a, kb, `${slow.origin}/public/v1`);
      expect(Date.now() - started).to.be.lessThan(REWRITE_TIMEOUT_MS + 1_000);
      expect(late.rewrites).to.deep.equal({ status: 'UNAVAILABLE', queries: [], reason: 'no answer within 5 s' });
      expect(late.agentry).to.deep.equal(plain.agentry);
    } finally {
      await new Promise((resolve) => slow.server.close(resolve));
    }

    // The suite's API has no provider at all.
    ai.script();
    const none = await ask(a, kb);
    expect(none.rewrites.status).to.equal('UNAVAILABLE');
    expect(none.rewrites.reason).to.match(/AI gateway is not configured/);
    expect(none.agentry).to.deep.equal(plain.agentry);
    expect(ai.chats).to.have.length(0);
  });

  it("in an agent's step, a retried attempt answers the recorded rewordings: the model is asked and paid once", async () => {
    const ai = harness().ai;
    const gateway = new AiGateway(harness().aiProvider);
    const executionKey = `test-rewrite-${a.account.id}-${Date.now()}`;
    const before = await balanceOf(a.account.id);
    ai.script({ content: JSON.stringify({ queries: REWORDINGS }) }, { content: JSON.stringify({ queries: ['something else'] }) });
    const attempt = () => recordedQueryRewriter(gateway, harness().orm.em.fork(), a.account.id, executionKey)(QUESTION);
    const [first, second] = [await attempt(), await attempt()];
    expect(first).to.deep.equal(REWORDINGS);
    expect(second).to.deep.equal(REWORDINGS);
    expect(ai.chats).to.have.length(1);
    const charged = before - (await balanceOf(a.account.id));
    expect(charged).to.be.greaterThan(0);
    // Another question of the same step (a second search_knowledge call) is its own rewrite.
    expect(await recordedQueryRewriter(gateway, harness().orm.em.fork(), a.account.id, executionKey)('Where is my parcel?')).to.deep.equal([
      'something else',
    ]);
    expect(before - (await balanceOf(a.account.id))).to.equal(2 * charged);
    ai.script();
  });
});
