import { expect } from 'chai';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { openRuns, quiet } from '../setup/quiet.js';
import { waitUntil } from '../setup/runs.js';
import { aiWorkflow } from './ai-nodes.helpers.js';

// The default TEXT model of the catalog (GET /ai-models): GPT-4o, 5 credits a message.
const DEFAULT_TEXT = { externalId: 'gpt-4o', credits: 5 };

describe('AI nodes through the AI gateway (a local OpenAI-compatible server)', function () {
  this.timeout(60_000);
  const ai = () => harness().ai;

  it('AI_CAPTURE extracts into captureVariables with structured output, on the default model, and reports credits', async () => {
    const { userKey: key } = await newAccount();
    const wf = await aiWorkflow(key, ['email', 'city']);
    const capture = await wf.node('AI_CAPTURE', {
      prompt: 'Message: {trigger_payload}',
      instructions: 'Emails in lower case',
      captureVariables: [{ name: 'email' }, { name: 'city' }],
    });
    ai().script({ content: JSON.stringify({ email: 'ada@example.test', city: null }), usage: { prompt_tokens: 120, completion_tokens: 12 } });
    const run = await wf.run(capture, 'Write to ADA@example.test');

    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.variables).to.include({ email: 'ada@example.test' });
    expect(run.variables.city ?? null).to.equal(null);
    expect(run.nodeResults[0]).to.deep.include({ output: { captures: { email: 'ada@example.test' } }, aiCredits: DEFAULT_TEXT.credits });
    expect(run.aiCredits).to.equal(DEFAULT_TEXT.credits);
    const [request] = ai().chats;
    expect(request.authorization).to.equal('Bearer test-ai-key');
    expect(request.body.model).to.equal(DEFAULT_TEXT.externalId);
    const format = request.body.response_format as { type: string; json_schema: { schema: { required: string[] } } };
    expect(format.type).to.equal('json_schema');
    expect(format.json_schema.schema.required).to.deep.equal(['email', 'city']);
    const messages = request.body.messages as { role: string; content: string }[];
    expect(messages[1]).to.deep.equal({ role: 'user', content: 'Message: Write to ADA@example.test' });
    expect(messages[0].content).to.contain('Emails in lower case');

    // The run log and the ledger carry the credits.
    const logs = await waitUntil(
      () => call('GET', `/workflows/${wf.id}/logs`, { key }),
      (res) => res.body.agentry?.[0]?.completed_at != null,
      'the run listed as ended',
    );
    expect(logs.body.agentry[0].ai_credits).to.equal(DEFAULT_TEXT.credits);
  });

  it('uses the model a node names (aiModelId, or model + aiVendor) by its externalId', async () => {
    const { userKey: key } = await newAccount();
    const wf = await aiWorkflow(key);
    const byId = await wf.node('DATA_TRANSFORMER', { prompt: 'x', aiModelId: -3 });
    const byName = await wf.node('DATA_TRANSFORMER', { prompt: 'y', model: 'gemini-2.5-pro', aiVendor: 'google' });
    await wf.edge(byId, 'default', byName);
    ai().script({ content: 'one' }, { content: 'two' });
    const run = await wf.run(byId);
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(ai().chats.map((r) => r.body.model)).to.deep.equal(['o3-mini', 'gemini-2.5-pro']);
    expect(run.nodeResults.map((r) => r.aiCredits)).to.deep.equal([8, 8]);
    expect(run.aiCredits).to.equal(16);
  });

  it('DATA_TRANSFORMER answers JSON when the model writes JSON (code fence allowed), else the text', async () => {
    const { userKey: key } = await newAccount();
    const wf = await aiWorkflow(key);
    const json = await wf.node('DATA_TRANSFORMER', { prompt: 'Split {trigger_payload} into first and last name' });
    const plain = await wf.node('DATA_TRANSFORMER', { prompt: 'Greet {' + json + '.first}' });
    await wf.edge(json, 'default', plain);
    ai().script({ content: '```json\n{"first":"Ada","last":"Lovelace"}\n```' }, { content: ' Hello Ada! ' });
    const run = await wf.run(json, 'Ada Lovelace');
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.nodeResults.map((r) => r.output)).to.deep.equal([{ first: 'Ada', last: 'Lovelace' }, 'Hello Ada!']);
    expect((ai().chats[1].body.messages as { content: string }[])[1].content).to.equal('Greet Ada');
  });

  it('CONDITIONAL_ROUTING follows the condition the model chooses, and default when it chooses none', async () => {
    const { userKey: key } = await newAccount();
    const wf = await aiWorkflow(key);
    const route = await wf.node('CONDITIONAL_ROUTING', {
      conditions: [
        { id: 'angry', expression: 'The message "{trigger_payload}" is angry' },
        { id: 'question', expression: 'The message "{trigger_payload}" asks a question' },
      ],
    });
    const onQuestion = await wf.node('DATA_TRANSFORMER', { prompt: 'answer' });
    const onDefault = await wf.node('DATA_TRANSFORMER', { prompt: 'file it' });
    await wf.edge(route, 'question', onQuestion);
    await wf.edge(route, 'default', onDefault);

    ai().script({ content: '{"conditionId":"question"}' }, { content: 'answered' });
    const asked = await wf.run(route, 'Where is my order?');
    expect(asked.successful, JSON.stringify(asked)).to.equal(true);
    expect(asked.nodeResults.map((r) => r.nodeId)).to.deep.equal([route, onQuestion]);
    const schema = (ai().chats[0].body.response_format as { json_schema: { schema: { properties: { conditionId: { enum: unknown[] } } } } })
      .json_schema.schema;
    expect(schema.properties.conditionId.enum).to.deep.equal(['angry', 'question', null]);
    expect((ai().chats[0].body.messages as { content: string }[])[1].content).to.contain('id "angry": The message "Where is my order?" is angry');

    ai().script({ content: '{"conditionId":null}' }, { content: 'filed' });
    const neither = await wf.run(route, 'Thanks');
    expect(neither.nodeResults.map((r) => r.nodeId)).to.deep.equal([route, onDefault]);
    expect(neither.aiCredits).to.equal(2 * DEFAULT_TEXT.credits);
  });

  it('CONDITIONAL_ROUTING with useAi false applies plain rules without calling the model', async () => {
    const { userKey: key } = await newAccount();
    const wf = await aiWorkflow(key);
    const route = await wf.node('CONDITIONAL_ROUTING', {
      useAi: false,
      conditions: [
        { id: 'big', expression: '{trigger_payload.amount} >= 1000' },
        { id: 'vip', expression: '{trigger_payload.tier} == gold' },
      ],
    });
    ai().script();
    const big = await wf.run(route, { amount: 1500, tier: 'silver' });
    const vip = await wf.run(route, { amount: 20, tier: 'Gold' });
    const none = await wf.run(route, { amount: 20, tier: 'silver' });
    expect([big, vip, none].map((r) => r.nodeResults[0].output)).to.deep.equal([
      { conditionId: 'big' },
      { conditionId: 'vip' },
      { conditionId: null },
    ]);
    expect([big, vip, none].every((r) => r.successful && r.aiCredits === 0)).to.equal(true);
    expect(ai().requests).to.have.length(0);
  });

  it('sends an answer that does not fit the schema back once with the error, then fails with the model text', async () => {
    const { userKey: key } = await newAccount();
    const wf = await aiWorkflow(key, ['email']);
    const capture = await wf.node('AI_CAPTURE', { prompt: 'p', captureVariables: [{ name: 'email' }] });

    ai().script({ content: 'Sure! The email is a@b.test' }, { content: '{"email":"a@b.test"}' });
    const repaired = await wf.run(capture);
    expect(repaired.successful, JSON.stringify(repaired)).to.equal(true);
    expect(repaired.variables.email).to.equal('a@b.test');
    expect(repaired.aiCredits).to.equal(2 * DEFAULT_TEXT.credits);
    const retry = ai().chats[1].body.messages as { role: string; content: string }[];
    expect(retry.at(-2)).to.deep.equal({ role: 'assistant', content: 'Sure! The email is a@b.test' });
    expect(retry.at(-1)!.content).to.match(/not JSON/);

    ai().script({ content: '{"mail":"a@b.test"}' }, { content: '{"email":["a@b.test"]}' });
    const failed = await wf.run(capture);
    expect(failed.successful).to.equal(false);
    expect(failed.error!.message)
      .to.match(/does not fit the expected schema/)
      .and.to.contain('{"email":["a@b.test"]}');
    expect(ai().chats).to.have.length(2);
    // Both calls were made and charged: the failed node reports them.
    expect(failed.nodeResults[0]).to.deep.include({ success: false, aiCredits: 2 * DEFAULT_TEXT.credits });
    expect(failed.aiCredits).to.equal(2 * DEFAULT_TEXT.credits);
  });

  it('retries 429 after its Retry-After and 5xx with backoff; fails at once on other 4xx with the provider message', async () => {
    const { userKey: key } = await newAccount();
    const wf = await aiWorkflow(key);
    const transform = await wf.node('DATA_TRANSFORMER', { prompt: 'p' });

    ai().script({ status: 429, headers: { 'retry-after': '1' } }, { status: 503 }, { content: 'done' });
    const retried = await wf.run(transform);
    expect(retried.successful, JSON.stringify(retried)).to.equal(true);
    expect(retried.nodeResults[0].output).to.equal('done');
    const [first, second] = ai().chats;
    expect(second.at - first.at).to.be.at.least(950);
    expect(ai().chats).to.have.length(3);

    ai().script({ status: 400, body: JSON.stringify({ error: { message: 'model "gpt-4o" not found' } }) });
    const refused = await wf.run(transform);
    expect(refused.successful).to.equal(false);
    expect(refused.error!.message).to.equal('The AI provider refused the request (400): model "gpt-4o" not found');
    // Refused for good: no call after the first, however long one waits.
    expect(await quiet(() => ai().chats.length, { busy: [openRuns({ automationId: wf.id })], what: 'the AI calls' })).to.equal(1);
  });

  it('stops the run with insufficient_credits when an AI call would take the balance below zero', async () => {
    const a = await newAccount();
    const wf = await aiWorkflow(a.userKey);
    const first = await wf.node('DATA_TRANSFORMER', { prompt: 'p' });
    const second = await wf.node('DATA_TRANSFORMER', { prompt: 'q' });
    await wf.edge(first, 'default', second);
    await harness().orm.em.getConnection().execute('update accounts set credit_balance = 7 where id = ?', [a.account.id]);
    // One reply only: a second call would fail the run with the fake's 500 instead of insufficient credits, and no
    // reply is left over for the next test.
    ai().script({ content: 'one' });
    const run = await wf.run(first);
    expect(run.successful).to.equal(false);
    expect(run.insufficientCredits).to.equal(true);
    expect(run.error).to.deep.include({ nodeId: second });
    expect(run.error!.message).to.match(/^Insufficient credits/);
    expect(ai().chats).to.have.length(1);
    const balance = await waitUntil(
      () => harness().orm.em.getConnection().execute('select credit_balance from accounts where id = ?', [a.account.id]),
      (rows) => Number(rows[0].credit_balance) === 2,
      'the first call charged',
    );
    expect(Number(balance[0].credit_balance)).to.equal(2);
  });
});
