/** What a conversation turn reads in one statement: the agent, the visitor, the live flows, the welcome message. */
import { expect } from 'chai';
import { readTurnRows } from '../../db/agents/turn-context.js';
import { ok } from '../api/agents/agent-calls.helpers.js';
import { intent, intentFlow, publish, startConversation, talkingAgent } from '../api/agents/conversation.helpers.js';
import { harness } from '../setup/harness.js';
import { newAccount } from '../setup/http.js';

describe('reading a turn in one statement', () => {
  const knex = () => harness().orm.em.getKnex();

  it("answers the agent's name, its live flows only (not drafts, paused or deleted ones) and, asked for, the welcome message", async () => {
    const a = await newAccount();
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const flow = async (name: string) => (await ok('POST', `${agent.base}/flows`, a.generalKey, { name })).id as number;
    const [live, paused, deleted] = [await flow('Live'), await flow('Paused'), await flow('Deleted')];
    await flow('Draft only');
    for (const id of [live, paused, deleted]) await publish(a, agent, id);
    await ok('PUT', `${agent.base}/flows/${paused}`, a.generalKey, { status: 'PAUSED' });
    await ok('DELETE', `${agent.base}/flows/${deleted}`, a.generalKey, undefined, 204);
    await ok('PUT', `${agent.base}/theme`, a.userKey, { welcomeMessage: '  Hi there  ' });
    const conversation = await startConversation(a, agent);

    const rows = await readTurnRows(knex(), conversation.id, { withIntents: false, withWelcome: true });
    expect(rows).to.include({ contactName: null, contactEmail: null, welcomeMessage: 'Hi there' });
    expect(rows.agentName).to.match(/^Agent /);
    expect(rows.flows.map((f) => [f.id, f.isDefault])).to.deep.equal([
      [agent.defaultFlowId, true],
      [live, false],
    ]);
    expect(rows.flows.every((f) => typeof f.liveSnapshotId === 'string')).to.equal(true);
    expect((await readTurnRows(knex(), conversation.id, { withIntents: false, withWelcome: false })).welcomeMessage).to.equal('');
  });

  it("answers the intents its other live flows are entered by: the agent's own only, never another agent's or account's", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const hours = await intent(a, agent, 'Opening hours', ['when do you open']);
    const cancel = await intent(a, agent, 'Cancel order', ['cancel my order']);
    await intent(a, agent, 'Unused', ['nothing']);
    const otherAgentIntent = await intent(a, await talkingAgent(a), 'Pricing', ['how much']);
    const otherAccountIntent = await intent(b, await talkingAgent(b), 'Cancel order', ['cancel my order now']);
    const { flowId } = await intentFlow(a, agent, 'Hours', [hours], [{ type: 'SAY_AI', data: { message: 'At 9.' } }]);
    // A snapshot naming other agents' intents (and ids that are no numbers) loads only the agent's own.
    await knex().raw(
      `update graph_snapshots s set nodes = (select jsonb_agg(case when n ->> 'type' = 'TRIGGER_INTENT' then jsonb_set(n, '{data,intentIds}', ?::jsonb) else n end)
                                              from jsonb_array_elements(s.nodes) as n)
        where s.id = (select live_snapshot_id from flows where id = ?)`,
      [JSON.stringify([String(cancel), hours, otherAgentIntent, otherAccountIntent, 'x']), flowId],
    );
    const conversation = await startConversation(a, agent);
    const rows = await readTurnRows(knex(), conversation.id, { withIntents: true, withWelcome: false });
    expect(rows.intents).to.deep.equal([
      { id: hours, name: 'Opening hours', phrases: ['when do you open'] },
      { id: cancel, name: 'Cancel order', phrases: ['cancel my order'] },
    ]);
    expect((await readTurnRows(knex(), conversation.id, { withIntents: false, withWelcome: false })).intents).to.deep.equal([]);
  });

  it('fails for a conversation that does not exist', async () => {
    const missing = await readTurnRows(knex(), '00000000-0000-4000-8000-000000000000', { withIntents: true, withWelcome: true }).catch(
      (error: Error) => error,
    );
    expect(missing)
      .to.be.instanceOf(Error)
      .with.property('message')
      .that.matches(/not found/);
  });
});
