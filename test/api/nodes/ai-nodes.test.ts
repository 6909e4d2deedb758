/** What every AI node shares: the model it names, structured answers repaired once, provider retries, credits. */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { openRuns, quiet } from '../../setup/quiet.js';
import { waitUntil } from '../../setup/runs.js';
import { DEFAULT_TEXT_MODEL, draftWorkflow } from './node-runs.helpers.js';

describe('AI nodes through the AI gateway (a local OpenAI-compatible server)', function () {
  this.timeout(60_000);
  const ai = () => harness().ai;

  it('uses the model a node names (aiModelId, or model + aiVendor) by its externalId', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
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

  it('sends an answer that does not fit the schema back once with the error, then fails with the model text', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key, ['email']);
    const capture = await wf.node('AI_CAPTURE', { prompt: 'p', captureVariables: [{ name: 'email' }] });

    ai().script({ content: 'Sure! The email is a@b.test' }, { content: '{"email":"a@b.test"}' });
    const repaired = await wf.run(capture);
    expect(repaired.successful, JSON.stringify(repaired)).to.equal(true);
    expect(repaired.variables.email).to.equal('a@b.test');
    expect(repaired.aiCredits).to.equal(2 * DEFAULT_TEXT_MODEL.credits);
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
    expect(failed.nodeResults[0]).to.deep.include({ success: false, aiCredits: 2 * DEFAULT_TEXT_MODEL.credits });
    expect(failed.aiCredits).to.equal(2 * DEFAULT_TEXT_MODEL.credits);
  });

  it('retries 429 after its Retry-After and 5xx with backoff; fails at once on other 4xx with the provider message', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
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
    const wf = await draftWorkflow(a.userKey);
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
