/** Agents through HTTP: create with defaults, safe detail, update, soft delete, deployment status, isolation. */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { issueAt, newAgent, ok, refused, type Account } from './agent-calls.helpers.js';

describe('agents', () => {
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  it('creates an agent offline with its default flow "Start" holding one START node, and never shows its secrets', async () => {
    const agent = await ok('POST', '/agents', a.userKey, { name: ' Support ', description: 'Helps' });
    expect(agent).to.include({ name: 'Support', description: 'Helps', isOffline: true });
    expect(agent.id).to.match(/^[0-9a-f-]{36}$/);
    const detail = await ok('GET', `/agents/${agent.id}`, a.generalKey);
    expect(detail).to.deep.equal(agent);
    expect(JSON.stringify(detail)).to.not.match(/secret|hmac/i);
    const row = await harness().orm.em.getKnex().raw('select widget_session_key, identity_secret_sealed from agents where id = ?', [agent.id]);
    expect(row.rows[0].widget_session_key).to.match(/^[0-9a-f]{64}$/);
    expect(row.rows[0].identity_secret_sealed).to.equal(null);
    const flows = await ok('GET', `/agents/${agent.id}/flows`, a.generalKey);
    expect(flows.agentry).to.have.length(1);
    expect(flows.agentry[0]).to.include({
      id: agent.defaultFlowId,
      name: 'Start',
      status: 'DRAFT',
      isDefault: true,
      runCount: 0,
      assistantId: agent.id,
    });
    const graph = await ok('GET', `/agents/${agent.id}/flows/${agent.defaultFlowId}/graph`, a.generalKey);
    expect(graph.nodes.map((n: { type: string; nodeId: string }) => [n.type, n.nodeId])).to.deep.equal([['START', 'start_1']]);
    const list = await ok('GET', '/agents', a.generalKey);
    expect(list.agentry).to.deep.include({ id: agent.id, name: 'Support', isOffline: true });
  });

  it('answers bodies that validate against the documented schemas', async () => {
    const agent = await newAgent(a, 'Documented');
    // The response contract (test/setup/contract.ts) checks each answer against the document.
    const checks: [string, string][] = [
      ['/agents', '/agents'],
      ['/agents/{agentId}', `/agents/${agent.id}`],
      ['/agents/{agentId}/agent-setting', `/agents/${agent.id}/agent-setting`],
      ['/agents/{agentId}/theme', `/agents/${agent.id}/theme`],
      ['/agents/{agentId}/settings', `/agents/${agent.id}/settings`],
      ['/agents/{agentId}/settings/{channel}', `/agents/${agent.id}/settings/instagram`],
      ['/agents/{agentId}/flows', `/agents/${agent.id}/flows`],
      ['/agents/{agentId}/flows/{flowId}', `/agents/${agent.id}/flows/${agent.defaultFlowId}?includeNodes=true`],
      ['/agents/{agentId}/flows/{flowId}/graph', `/agents/${agent.id}/flows/${agent.defaultFlowId}/graph`],
      ['/agents/{agentId}/variables/all', `/agents/${agent.id}/variables/all`],
      ['/agents/{agentId}/analytics', `/agents/${agent.id}/analytics`],
      ['/agents/{agentId}/conversations', `/agents/${agent.id}/conversations`],
    ];
    for (const [, url] of checks) expect(await ok('GET', url, a.userKey), url).to.be.an('object');
  });

  it('updates metadata, refuses bad bodies naming the field, and needs a USER key to write', async () => {
    const agent = await newAgent(a, 'Old');
    const updated = await ok('PUT', `/agents/${agent.id}`, a.userKey, { name: 'New', description: null });
    expect(updated).to.include({ name: 'New', description: null });
    expect(issueAt(await refused('PUT', `/agents/${agent.id}`, a.userKey, 400, { name: '' }), 'name').code).to.equal('invalid');
    expect(issueAt(await refused('POST', '/agents', a.userKey, 400, { name: 'x', secret: 'y' }), 'secret').code).to.equal('unknown_field');
    expect(issueAt(await refused('POST', '/agents', a.userKey, 400, {}), 'name').code).to.equal('required');
    for (const [method, path, body] of [
      ['POST', '/agents', { name: 'x' }],
      ['PUT', `/agents/${agent.id}`, { name: 'x' }],
      ['DELETE', `/agents/${agent.id}`, undefined],
      ['PUT', `/agents/${agent.id}/deployment-status`, { isOffline: false }],
    ] as const) {
      expect((await refused(method, path, a.generalKey, 403, body)).code).to.equal('forbidden');
    }
    expect((await ok('GET', `/agents/${agent.id}`, a.userKey)).name).to.equal('New');
  });

  it("keeps accounts apart: another account's agent is 404 everywhere", async () => {
    const agent = await newAgent(a, 'Mine');
    const b = await newAccount();
    for (const path of ['', '/agent-setting', '/theme', '/settings', '/flows', '/variables', '/intents', '/analytics']) {
      await refused('GET', `/agents/${agent.id}${path}`, b.userKey, 404);
    }
    await refused('PUT', `/agents/${agent.id}`, b.userKey, 404, { name: 'Stolen' });
    await refused('DELETE', `/agents/${agent.id}`, b.userKey, 404);
    await refused('GET', '/agents/not-a-uuid', a.userKey, 404);
    expect((await ok('GET', '/agents', b.userKey)).agentry).to.deep.equal([]);
  });

  it('goes online and offline; an exhausted credit balance cannot go online', async () => {
    const agent = await newAgent(a, 'Deploy');
    expect((await ok('PUT', `/agents/${agent.id}/deployment-status`, a.userKey, { isOffline: false })).isOffline).to.equal(false);
    expect((await ok('PUT', `/agents/${agent.id}/deployment-status`, a.userKey, { isOffline: true })).isOffline).to.equal(true);
    await harness().orm.em.getKnex().raw('update accounts set credit_balance = 0 where id = ?', [a.account.id]);
    try {
      const error = await refused('PUT', `/agents/${agent.id}/deployment-status`, a.userKey, 409, { isOffline: false });
      expect(error.message).to.match(/credit balance is exhausted/);
      expect((await ok('GET', `/agents/${agent.id}`, a.userKey)).isOffline).to.equal(true);
      expect((await ok('PUT', `/agents/${agent.id}/deployment-status`, a.userKey, { isOffline: true })).isOffline).to.equal(true);
    } finally {
      await harness().orm.em.getKnex().raw('update accounts set credit_balance = null where id = ?', [a.account.id]);
    }
    issueAt(await refused('PUT', `/agents/${agent.id}/deployment-status`, a.userKey, 400, {}), 'isOffline');
  });

  it('soft deletes an agent with its flows, variables and intents; workflows triggered by it keep working for the others', async () => {
    const gone = await newAgent(a, 'Gone');
    const stays = await newAgent(a, 'Stays');
    await ok('POST', `/agents/${gone.id}/variables`, a.userKey, { name: 'order' });
    await ok('POST', `/agents/${gone.id}/intents`, a.userKey, { name: 'refund', trainingPhrases: ['I want my money back'] });
    const workflow = await ok('POST', '/workflows', a.userKey, { name: 'On end' });
    const trigger = { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_ENDED', triggeredByAgentIds: [gone.id, stays.id] } };
    const node = (await ok('POST', `/workflows/${workflow.id}/nodes`, a.userKey, trigger)).nodes[0];
    await ok('DELETE', `/agents/${gone.id}`, a.userKey, undefined, 204);
    await refused('GET', `/agents/${gone.id}`, a.userKey, 404);
    await refused('GET', `/agents/${gone.id}/flows/${gone.defaultFlowId}`, a.userKey, 404);
    expect((await ok('GET', '/agents', a.userKey)).agentry.map((x: { id: string }) => x.id)).to.not.include(gone.id);
    const knex = harness().orm.em.getKnex();
    expect((await knex.raw('select count(*)::int as n from agent_variables where agent_id = ?', [gone.id])).rows[0].n).to.equal(0);
    expect((await knex.raw('select count(*)::int as n from intents where agent_id = ?', [gone.id])).rows[0].n).to.equal(0);
    expect((await knex.raw('select count(*)::int as n from flows where agent_id = ? and deleted_at is null', [gone.id])).rows[0].n).to.equal(0);
    const detail = await ok('GET', `/workflows/${workflow.id}?includeNodes=true`, a.userKey);
    expect(detail.nodes[0].data.triggeredByAgentIds).to.deep.equal([gone.id, stays.id]);
    expect(detail.staleReferences).to.deep.equal([
      {
        nodeId: node.nodeId,
        path: 'data.triggeredByAgentIds[0]',
        id: gone.id,
        message: `agent ${gone.id} was deleted: the node fires for the other agents it names`,
      },
    ]);
    // The deleted agent is no longer a valid reference for new saves; the remaining one is.
    const error = await refused('PUT', `/workflows/${workflow.id}/nodes/${node.nodeId}`, a.userKey, 400, trigger);
    expect(issueAt(error, 'data.triggeredByAgentIds[0]').code).to.equal('not_found');
    await ok(
      'PUT',
      `/workflows/${workflow.id}/nodes/${node.nodeId}`,
      a.userKey,
      { ...trigger, data: { ...trigger.data, triggeredByAgentIds: [stays.id] } },
      200,
    );
    expect((await ok('GET', `/workflows/${workflow.id}`, a.userKey)).staleReferences).to.deep.equal([]);
  });
});
