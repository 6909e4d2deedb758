/** Flows through HTTP: CRUD, the default flow, node ids, flow rules, node references, edges, publish. */
import { expect } from 'chai';
import { call, newAccount } from '../../setup/http.js';
import { issueAt, newAgent, ok, refused, type Account } from './agent-calls.helpers.js';

describe('flows', () => {
  let a: Account;
  let agent: { id: string; defaultFlowId: number };
  let base: string;
  before(async () => {
    a = await newAccount();
    agent = await newAgent(a);
    base = `/agents/${agent.id}/flows`;
  });

  const graphOf = async (flowId: number) => ok('GET', `${base}/${flowId}/graph`, a.generalKey);

  /** Sends a refused node and checks the issue, and that the graph did not change. */
  async function expectNodeRefused(flowId: number, body: unknown, path: string, code: string, message: RegExp, nodeId?: string) {
    const before = await graphOf(flowId);
    const error = nodeId
      ? await refused('PUT', `${base}/${flowId}/nodes/${nodeId}`, a.generalKey, 400, body)
      : await refused('POST', `${base}/${flowId}/nodes`, a.generalKey, 400, body);
    expect(error.code).to.equal('bad_request');
    const issue = issueAt(error, path);
    expect(issue.code, JSON.stringify(error)).to.equal(code);
    expect(issue.message).to.match(message);
    expect(await graphOf(flowId)).to.deep.equal(before);
    return error;
  }

  it('creates, lists (without nodes), reads with includeNodes, updates and soft deletes flows; the default flow stays', async () => {
    const flow = await ok('POST', base, a.generalKey, { name: 'Refunds', description: 'Money back' });
    expect(flow).to.include({ name: 'Refunds', status: 'DRAFT', isDefault: false, runCount: 0, assistantId: agent.id, liveSnapshotId: null });
    expect(flow.draftSnapshotId).to.match(/^[0-9a-f]{24}$/);
    const list = await ok('GET', base, a.generalKey);
    expect(list.agentry.map((f: { name: string }) => f.name)).to.deep.equal(['Start', 'Refunds']);
    expect(list.agentry[0]).to.not.have.property('nodes');
    expect((await ok('GET', `${base}/${agent.defaultFlowId}?includeNodes=true`, a.generalKey)).nodes).to.have.length(1);
    expect((await ok('PUT', `${base}/${flow.id}`, a.generalKey, { status: 'ACTIVE', name: 'Refund flow' })).status).to.equal('ACTIVE');
    issueAt(await refused('PUT', `${base}/${flow.id}`, a.generalKey, 400, { status: 'LIVE' }), 'status');
    const error = await refused('DELETE', `${base}/${agent.defaultFlowId}`, a.generalKey, 409);
    expect(error.message).to.match(/default flow/);
    await ok('DELETE', `${base}/${flow.id}`, a.generalKey, undefined, 204);
    await refused('GET', `${base}/${flow.id}`, a.generalKey, 404);
    const other = await newAgent(a, 'Other');
    await refused('GET', `/agents/${other.id}/flows/${agent.defaultFlowId}`, a.generalKey, 404);
  });

  it('enforces the flow rules: one START, only in the default flow; other flows begin with a TRIGGER_INTENT; no edge enters an entry', async () => {
    const start = agent.defaultFlowId;
    await expectNodeRefused(start, { type: 'START' }, 'type', 'invalid', /exactly one START/);
    await expectNodeRefused(start, { type: 'TRIGGER_INTENT' }, 'type', 'invalid', /default flow starts at its START node/);
    const error = await refused('DELETE', `${base}/${start}/nodes/start_1`, a.generalKey, 400);
    expect(issueAt(error, 'nodeId').message).to.match(/START node of the default flow cannot be deleted/);
    const flow = await ok('POST', base, a.generalKey, { name: 'Orders' });
    await expectNodeRefused(flow.id, { type: 'START' }, 'type', 'invalid', /START is only allowed in the default flow/);
    await expectNodeRefused(flow.id, { type: 'SAY_AI', data: { message: 'Hi' } }, 'type', 'invalid', /begins with a TRIGGER_INTENT/);
    const entry = (
      await ok('POST', `${base}/${flow.id}/nodes`, a.generalKey, { type: 'TRIGGER_INTENT', data: { agenticRouting: 'When they ask about orders' } })
    ).nodes[0];
    expect(entry.nodeId).to.equal('trigger_intent_1');
    await expectNodeRefused(flow.id, { type: 'TRIGGER_INTENT' }, 'type', 'invalid', /exactly one TRIGGER_INTENT/);
    const say = (await ok('POST', `${base}/${flow.id}/nodes`, a.generalKey, { type: 'SAY_AI', data: { message: 'Let me look' } })).nodes[1];
    expect(say.nodeId).to.equal('say_ai_1');
    await ok('POST', `${base}/${flow.id}/edges`, a.generalKey, { source: entry.nodeId, handle: 'default', targetEdge: say.nodeId });
    const back = await refused('POST', `${base}/${flow.id}/edges`, a.generalKey, 400, {
      source: say.nodeId,
      handle: 'default',
      targetEdge: entry.nodeId,
    });
    expect(issueAt(back, 'targetEdge').message).to.match(/entry points/);
    await refused('DELETE', `${base}/${flow.id}/nodes/${entry.nodeId}`, a.generalKey, 400);
    const graph = await ok('DELETE', `${base}/${flow.id}/nodes/${say.nodeId}`, a.generalKey);
    expect(graph.edges).to.deep.equal([]);
    expect((await ok('DELETE', `${base}/${flow.id}/nodes/${entry.nodeId}`, a.generalKey)).nodes).to.deep.equal([]);
  });

  it('validates node ids and refuses DYNAMIC_TABLES pointing to TOOLS_AI with table tools', async () => {
    const start = agent.defaultFlowId;
    await expectNodeRefused(start, { nodeId: 'say', type: 'SAY_AI' }, 'nodeId', 'invalid', /then _ and digits/);
    await expectNodeRefused(start, { nodeId: 'node_with space_1', type: 'SAY_AI' }, 'nodeId', 'invalid', /letters, digits/);
    await expectNodeRefused(start, { type: 'DYNAMIC_TABLES', data: { operation: 'CREATE' } }, 'type', 'invalid', /TOOLS_AI .*table tools/);
    await expectNodeRefused(start, { type: 'SCHEDULED_TRIGGER' }, 'type', 'invalid', /must be one of/);
    const graph = await ok('POST', `${base}/${start}/nodes`, a.generalKey, {
      nodeId: 'greeting-main_12',
      type: 'SAY_AI',
      data: { message: 'Welcome' },
    });
    expect(graph.nodes.map((n: { nodeId: string }) => n.nodeId)).to.deep.equal(['start_1', 'greeting-main_12']);
    await ok('POST', `${base}/${start}/edges`, a.generalKey, { source: 'start_1', handle: 'default', targetEdge: 'greeting-main_12' });
    const replaced = await ok('POST', `${base}/${start}/nodes`, a.generalKey, { type: 'SAY_AI', data: { message: 'Bye' }, alias: 'bye' });
    expect(replaced.nodes.at(-1).nodeId).to.equal('say_ai_1');
    const edges = (await ok('POST', `${base}/${start}/edges`, a.generalKey, { source: 'start_1', handle: 'default', targetEdge: 'say_ai_1' })).edges;
    expect(edges).to.deep.equal([{ source: 'start_1', handle: 'default', targetEdge: 'say_ai_1' }]);
    await refused('POST', `${base}/${start}/edges`, a.generalKey, 400, { source: 'start_1', handle: 'yes', targetEdge: 'say_ai_1' });
    await ok('DELETE', `${base}/${start}/edges`, a.generalKey, { source: 'start_1', handle: 'default' }, 200);
  });

  it('refuses every unknown reference of flow nodes with 400 not_found, saving nothing, and accepts real ones', async () => {
    const b = await newAccount();
    const foreignAgent = await newAgent(b, 'Foreign');
    const foreignTool = await ok('POST', '/custom-tools', b.userKey, { name: 'x', url: 'https://x.test' });
    const flow = await ok('POST', base, a.generalKey, { name: 'Refs' });
    const otherAgent = await newAgent(a, 'Sibling');
    const siblingIntent = await ok('POST', `/agents/${otherAgent.id}/intents`, a.userKey, { name: 'hello' });
    await expectNodeRefused(
      flow.id,
      { type: 'TRIGGER_INTENT', data: { intentIds: [siblingIntent.id] } },
      'data.intentIds[0]',
      'not_found',
      /no intent of this agent/,
    );
    const intent = await ok('POST', `/agents/${agent.id}/intents`, a.userKey, { name: 'orders', trainingPhrases: ['where is my order'] });
    await ok('POST', `${base}/${flow.id}/nodes`, a.generalKey, { type: 'TRIGGER_INTENT', data: { intentIds: [intent.id] } });
    const cases: [unknown, string, RegExp][] = [
      [{ type: 'TOOLS_AI', data: { customToolIds: [foreignTool.id] } }, 'data.customToolIds[0]', /no custom tool/],
      [{ type: 'TOOLS_AI', data: { playbookIds: [999999] } }, 'data.playbookIds[0]', /no playbook/],
      [{ type: 'TOOLS_AI', data: { knowledgeBaseIds: [999999] } }, 'data.knowledgeBaseIds[0]', /no knowledge base/],
      [{ type: 'TOOLS_AI', data: { selectedRecordTypes: [{ id: 999999 }] } }, 'data.selectedRecordTypes[0].id', /no record type/],
      [{ type: 'RESPONSE_AI', data: { assistantId: foreignAgent.id } }, 'data.assistantId', /no agent/],
      [{ type: 'RESPONSE_AI', data: { aiModelId: -9999 } }, 'data.aiModelId', /no AI model/],
      [{ type: 'SAY_AI', data: { aiModelId: -999 } }, 'data.aiModelId', /no AI model/],
      [{ type: 'RESPONSE_AI', data: { captureVariables: [{ name: 'nope' }] } }, 'data.captureVariables[0]', /does not exist in this agent/],
      [{ type: 'SAY_AI', data: { message: 'Hi {nobody}' } }, 'data.message', /variable "nobody" does not exist/],
      [{ type: 'API', data: { url: 'https://x.test/{missing}' } }, 'data.url', /"missing"/],
      [{ type: 'API', data: { url: 'https://x.test', variables: [{ key: 'nope' }] } }, 'data.variables[0].key', /does not exist in this agent/],
      [
        { type: 'CREATE_RECORD_ACTIVITY', data: { recordTypeId: 999999, rowId: 'x', activityType: 'NOTE', content: 'c' } },
        'data.recordTypeId',
        /no record type/,
      ],
    ];
    for (const [body, path, message] of cases) await expectNodeRefused(flow.id, body, path, 'not_found', message);
    await expectNodeRefused(flow.id, { type: 'SAY_AI', data: { aiModelId: -20 } }, 'data.aiModelId', 'invalid', /SAY_AI nodes need a TEXT model/);

    const variable = await ok('POST', `/agents/${agent.id}/variables`, a.userKey, { name: 'order_id', description: 'The order' });
    const tool = await ok('POST', '/custom-tools', a.userKey, { name: 'Lookup', url: 'https://shop.test/orders' });
    const playbook = await ok('POST', '/playbooks', a.userKey, { name: 'Tone', instructions: 'Be kind' });
    const kb = await ok('POST', '/knowledge-bases', a.userKey, { name: 'FAQ', documents: [{ title: 'Returns', content: '30 days' }] });
    const people = await ok('GET', '/objects/people', a.userKey);
    const tools = await ok('POST', `${base}/${flow.id}/nodes`, a.generalKey, {
      type: 'TOOLS_AI',
      data: {
        instructions: 'Find {order_id} for {contact_name}',
        customToolIds: [tool.id],
        playbookIds: [playbook.id],
        knowledgeBaseIds: [String(kb.id)],
        selectedRecordTypes: [{ id: people.recordTypes[0].id }],
        captureVariables: [{ name: 'order_id' }],
        aiModelId: -1,
      },
    });
    expect(tools.nodes.at(-1).data.captureVariables).to.deep.equal([{ id: variable.id, name: 'order_id', description: 'The order' }]);
    await ok('POST', `${base}/${flow.id}/nodes`, a.generalKey, {
      type: 'RESPONSE_AI',
      data: { instructions: 'Ask for it', assistantId: agent.id, captureVariables: [{ id: variable.id }] },
    });
    await ok('POST', `${base}/${flow.id}/nodes`, a.generalKey, {
      type: 'CONDITIONAL_ROUTING',
      data: { conditions: [{ id: 'found', expression: '{order_id} is set' }] },
    });
  });

  it('publishes the draft into an immutable live snapshot and lists snapshots', async () => {
    const flow = agent.defaultFlowId;
    const published = await ok('POST', `${base}/${flow}/publish`, a.generalKey);
    expect(published.liveSnapshotId).to.match(/^[0-9a-f]{24}$/);
    const snapshots = (await ok('GET', `${base}/${flow}/snapshots`, a.generalKey)).agentry;
    expect(snapshots.map((s: { kind: string; isLive: boolean }) => [s.kind, s.isLive])).to.deep.include(['LIVE', true]);
    expect(snapshots.filter((s: { kind: string }) => s.kind === 'DRAFT')).to.have.length(1);
  });

  it('documents the flow node body as a discriminated oneOf of the flow node types', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const schema = doc.components.schemas.FlowNode;
    expect(schema.discriminator.propertyName).to.equal('type');
    const branch = (ref: string) => doc.components.schemas[ref.replace('#/components/schemas/', '')];
    const types = schema.oneOf.map(({ $ref }: { $ref: string }) => branch($ref).properties.type.const);
    expect(Object.keys(schema.discriminator.mapping)).to.have.members(types);
    expect(types).to.include.members([
      'START',
      'TRIGGER_INTENT',
      'SAY_AI',
      'RESPONSE_AI',
      'TOOLS_AI',
      'API',
      'CONDITIONAL_ROUTING',
      'CREATE_RECORD_ACTIVITY',
      'DYNAMIC_TABLES',
    ]);
    expect(doc.components.schemas.SayAiNodeData.properties).to.have.keys(
      'type',
      'message',
      'prompt',
      'fallbackMessage',
      'aiModelId',
      'model',
      'aiVendor',
      // agentry's: what the conversation does after the message (end it, hand it to a person).
      'conversationAction',
    );
    expect(doc.paths['/agents/{agentId}/flows/{flowId}/nodes'].post.requestBody.content['application/json'].schema).to.deep.equal({
      $ref: '#/components/schemas/FlowNode',
    });
    expect(doc.components.schemas.WorkflowNode.properties.type.enum).to.not.include('START');
  });
});
