import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { DEFAULT_TEXT_MODEL, draftWorkflow } from './node-runs.helpers.js';

describe('CONDITIONAL_ROUTING nodes, by the model or by plain rules', function () {
  this.timeout(60_000);
  const ai = () => harness().ai;

  it('CONDITIONAL_ROUTING follows the condition the model chooses, and default when it chooses none', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
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
    expect(neither.aiCredits).to.equal(2 * DEFAULT_TEXT_MODEL.credits);
  });

  it('CONDITIONAL_ROUTING with useAi false applies plain rules without calling the model', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
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
});
