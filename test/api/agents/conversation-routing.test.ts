/** Conversations where the AI decides (ties, agenticRouting, TOOLS_AI) and conversations that outlive a workflow run. */
import { expect } from 'chai';
import { createTurnActivities } from '../../../activities/turn.activity.js';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { eventually } from '../../setup/runs.js';
import { ok, type Account } from './agent-calls.helpers.js';
import {
  chain,
  intent,
  intentFlow,
  orderLookup,
  publish,
  restartConversation,
  say,
  startConversation,
  talkingAgent,
  texts,
} from './conversation.helpers.js';

const ai = () => harness().ai;

describe('conversation routing by the AI, and long conversations', function () {
  this.timeout(60_000);
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  it('a tie between intents, and flows entered by agenticRouting, are decided by the AI', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const invoices = await intent(a, agent, 'invoices', ['billing question']);
    const plans = await intent(a, agent, 'plans', ['billing question']);
    await intentFlow(a, agent, 'Invoices', [invoices], [{ type: 'SAY_AI', data: { message: 'Invoices are under Settings.' } }]);
    await intentFlow(a, agent, 'Plans', [plans], [{ type: 'SAY_AI', data: { message: 'We have three plans.' } }]);
    const refunds = await ok('POST', `${agent.base}/flows`, a.generalKey, { name: 'Refunds' });
    await chain(a, agent, refunds.id, [
      { type: 'TRIGGER_INTENT', data: { agenticRouting: 'When the user wants their money back' } },
      { type: 'SAY_AI', data: { message: 'I will start your refund.' } },
    ]);
    await publish(a, agent, refunds.id);
    const conversation = await startConversation(a, agent);

    ai().script({ content: JSON.stringify({ choice: 2 }) });
    expect(texts(await say(a, agent, conversation.id, 'I have a billing question'))).to.deep.equal(['We have three plans.']);
    const asked = JSON.stringify(ai().chats[0]!.body.messages);
    expect(asked).to.contain('money back').and.to.contain('billing question');

    ai().script({ content: JSON.stringify({ choice: 1 }) });
    expect(texts(await say(a, agent, conversation.id, 'This charge is wrong, I want to be reimbursed'))).to.deep.equal(['I will start your refund.']);
    expect((await ok('GET', `${agent.base}/flows/${refunds.id}`, a.generalKey)).runCount).to.equal(1);

    // The AI was told what each tied flow is about.
    expect(asked).to.contain('invoices').and.to.contain('plans');
    // Without an AI provider a tie goes to the best local match (the lower intent id), and agenticRouting is not asked.
    const withoutAi = createTurnActivities(harness().orm, { aiAvailable: false });
    const turnInput = {
      accountId: a.account.id,
      agentId: agent.id,
      conversationId: conversation.id,
      channel: 'livechat',
      knownSnapshots: [],
      temporalRunId: 'test',
    };
    const tie = await withoutAi.beginTurn({ ...turnInput, turn: 90, message: { text: 'billing question', key: `tie-${conversation.id}` } });
    expect(tie.askAi).to.deep.equal([]);
    expect(tie.route).to.include({ by: 'intent', intentId: invoices });
    const refund = await withoutAi.beginTurn({
      ...turnInput,
      turn: 91,
      message: { text: 'I want to be reimbursed', key: `refund-${conversation.id}` },
    });
    expect([refund.route, refund.askAi]).to.deep.equal([null, []]);

    // The AI finds no flow: the default reply (AI-written) answers.
    ai().script({ content: JSON.stringify({ choice: 0 }) }, { content: 'How can I help you today?' });
    expect(texts(await say(a, agent, conversation.id, 'nice weather'))).to.deep.equal(['How can I help you today?']);
  });

  it('TOOLS_AI in a flow calls a custom tool the model chooses and says its answer to the user', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const service = await orderLookup();
    const tool = await ok('POST', '/custom-tools', a.userKey, {
      name: 'order status',
      description: 'Status of an order',
      method: 'GET',
      url: `${service.origin}/orders`,
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    });
    const orders = await intent(a, agent, 'orders', ['where is my order']);
    await intentFlow(a, agent, 'Orders', [orders], [{ type: 'TOOLS_AI', data: { instructions: 'Look orders up', customToolIds: [tool.id] } }]);
    const conversation = await startConversation(a, agent);
    ai().script({ toolCalls: [{ name: `tool_${tool.id}_order_status`, arguments: { id: '77' } }] }, { content: 'Order 77 has shipped.' });
    const turn = await say(a, agent, conversation.id, 'where is my order 77?');
    service.server.close();
    expect(texts(turn)).to.deep.equal(['Order 77 has shipped.']);
    expect(service.urls).to.deep.equal(['/orders?id=77']);
    // The model saw the conversation, the user's question included.
    expect(JSON.stringify(ai().chats[0]!.body.messages)).to.contain('where is my order 77?');
    expect(turn.messages[0].credits).to.be.greaterThan(0);
  });

  it('continues as new after its turns per run, keeping variables and a RESPONSE_AI waiting for its answer', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    await ok('POST', `${agent.base}/variables`, a.userKey, { name: 'city' });
    const weather = await intent(a, agent, 'weather', ['what is the weather']);
    await intentFlow(
      a,
      agent,
      'Weather',
      [weather],
      [
        { type: 'SAY_AI', data: { message: 'Which city?' } },
        { type: 'RESPONSE_AI', data: { captureVariables: [{ name: 'city' }] } },
        { type: 'SAY_AI', data: { message: 'Sunny in {city}.' } },
      ],
    );
    const started = await startConversation(a, agent);
    const client = harness().env.client;
    const first = await restartConversation(started, a, agent.id, { turnsPerRun: 1 });
    expect(texts(await say(a, agent, started.id, 'what is the weather'))).to.deep.equal(['Which city?']);
    await eventually(
      async () => ((await client.workflow.getHandle(started.temporalWorkflowId).describe()).runId !== first.firstExecutionRunId ? true : undefined),
      'a new run',
    );
    ai().script({ content: JSON.stringify({ city: 'Lisbon' }) });
    const answered = await say(a, agent, started.id, 'Lisbon');
    expect(texts(answered)).to.deep.equal(['Sunny in Lisbon.']);
    expect(answered.temporal.runId).to.not.equal(first.firstExecutionRunId);
    const state = await client.workflow.getHandle(started.temporalWorkflowId).query<{ variables: Record<string, unknown>; turns: number }>('state');
    expect(state.variables.city).to.equal('Lisbon');
    expect(state.turns).to.equal(2);
  });
});
