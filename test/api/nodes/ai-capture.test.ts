import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { waitUntil } from '../../setup/runs.js';
import { DEFAULT_TEXT_MODEL, draftWorkflow } from './node-runs.helpers.js';

describe('AI_CAPTURE nodes through the AI gateway (a local OpenAI-compatible server)', function () {
  this.timeout(60_000);
  const ai = () => harness().ai;

  it('AI_CAPTURE extracts into captureVariables with structured output, on the default model, and reports credits', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key, ['email', 'city']);
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
    expect(run.nodeResults[0]).to.deep.include({ output: { captures: { email: 'ada@example.test' } }, aiCredits: DEFAULT_TEXT_MODEL.credits });
    expect(run.aiCredits).to.equal(DEFAULT_TEXT_MODEL.credits);
    const [request] = ai().chats;
    expect(request.authorization).to.equal('Bearer test-ai-key');
    expect(request.body.model).to.equal(DEFAULT_TEXT_MODEL.externalId);
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
    expect(logs.body.agentry[0].ai_credits).to.equal(DEFAULT_TEXT_MODEL.credits);
  });
});
