import { expect } from 'chai';
import { call, newAccount } from '../setup/http.js';
import { runResult } from '../setup/runs.js';
import { SPEC_WORKFLOW_NODE_TYPES } from '../setup/node-types.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

async function addNode(a: Account, workflowId: number, body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', `/workflows/${workflowId}/nodes`, { key: a.userKey, body });
  expect(res.status, res.text).to.equal(201);
  return res.body.nodes.at(-1).nodeId;
}

const newWorkflow = async (a: Account, name = 'Nodes') => (await call('POST', '/workflows', { key: a.userKey, body: { name } })).body.id as number;

describe('node types as modules: documented data, declared handles, typed references', function () {
  this.timeout(30_000);

  it('documents the data of every workflow node type in the OpenAPI document, and the inbound webhook call', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const node = doc.components.schemas.WorkflowNode;
    expect(node.discriminator.propertyName).to.equal('type');
    const documented = node.oneOf.map(({ $ref }: { $ref: string }) => {
      // Each branch is a named node schema (`ApiNode`) whose data is the type's data schema (`ApiNodeData`).
      const branch = doc.components.schemas[$ref.replace('#/components/schemas/', '')];
      expect(node.discriminator.mapping[branch.properties.type.const]).to.equal($ref);
      const ref = branch.properties.data.$ref.replace('#/components/schemas/', '');
      expect(doc.components.schemas[ref].properties.type.const).to.equal(branch.properties.type.const);
      return branch.properties.type.const;
    });
    expect(documented.sort()).to.deep.equal([...SPEC_WORKFLOW_NODE_TYPES].sort());
    expect(doc.components.schemas.ApiNodeData.properties.method.enum).to.deep.equal(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);
    expect(doc.components.schemas.DynamicTablesNodeData.required).to.deep.equal(['action', 'tableId']);
    const inbound = doc.paths['/webhooks/{webhookId}'];
    expect(inbound.post.responses).to.have.property('202');
    expect(inbound.servers[0].url).to.not.match(/\/public\/v1$/);
  });

  it('accepts an edge only from a handle its source node type declares', async () => {
    const a = await newAccount();
    const id = await newWorkflow(a);
    const api = await addNode(a, id, { type: 'API', data: { url: 'https://x.test' } });
    const loop = await addNode(a, id, { type: 'ITERATION', data: { variableName: 'trigger_payload' } });
    const stop = await addNode(a, id, { type: 'BREAK', data: {} });
    const route = await addNode(a, id, { type: 'CONDITIONAL_ROUTING', data: { useAi: false, conditions: [{ id: 'vip', expression: 'is vip' }] } });
    const edge = (source: string, handle: string, targetEdge: string) =>
      call('POST', `/workflows/${id}/edges`, { key: a.userKey, body: { source, handle, targetEdge } });

    const wrong = await edge(api, 'success', loop);
    expect(wrong.status).to.equal(400);
    expect(wrong.body.message).to.equal('A API node has no handle "success" (its handles: one of "default")');
    expect(wrong.body.details.issues[0]).to.include({ path: 'handle', code: 'invalid' });
    expect((await edge(api, 'default', loop)).status).to.equal(201);
    expect((await edge(loop, 'body', api)).status).to.equal(201);
    expect((await edge(loop, 'default', api)).body.message).to.match(/one of "body", "completed", "empty"/);
    expect((await edge(stop, 'default', api)).body.message).to.match(/none: no edge leaves it/);
    expect((await edge(route, 'vip', api)).status).to.equal(201);
    expect((await edge(route, 'default', loop)).status).to.equal(201);
    expect((await edge(route, 'gold', api)).status).to.equal(400);

    const inline = await call('POST', `/workflows/${id}/nodes`, {
      key: a.userKey,
      body: { type: 'API', data: { url: 'https://y.test' }, edges: [{ handle: 'oops', targetEdge: api }] },
    });
    expect(inline.status).to.equal(400);
    expect(inline.body.details.issues[0]).to.include({ path: 'edges[0].handle' });
    expect((await call('GET', `/workflows/${id}/graph`, { key: a.userKey })).body.nodes).to.have.length(4);
  });

  it('saves references with paths into JSON values, refuses ones that can never resolve, and runs them with their JSON types', async () => {
    const a = await newAccount();
    await call('POST', '/tables', {
      key: a.userKey,
      body: {
        name: 'orders',
        columns: [
          { name: 'Email', type: 'string' },
          { name: 'Qty', type: 'number' },
          { name: 'First', type: 'string' },
        ],
      },
    });
    const tableId = (await call('GET', '/tables/orders', { key: a.userKey })).body.id;
    const id = await newWorkflow(a, 'Typed');
    const refused = await call('POST', `/workflows/${id}/nodes`, {
      key: a.userKey,
      body: { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData: { Email: '{customer.email}' } } },
    });
    expect(refused.status).to.equal(400);
    expect(refused.body.details.issues[0]).to.deep.include({
      path: 'data.rowData.Email',
      code: 'not_found',
      message: 'variable "customer.email" does not exist',
    });

    const rowData = { Email: '{trigger_payload.customer.email}', Qty: '{trigger_payload.qty}', First: '{trigger_payload.items[0].sku}' };
    const write = await addNode(a, id, { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData } });
    const payload = { qty: 42, customer: { email: 'ada@example.test' }, items: [{ sku: 'A-1' }, { sku: 'B-2' }] };
    const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key: a.userKey, body: { payload, entryNodeId: write } });
    const run = await runResult(started.body.id);
    expect(run.successful, JSON.stringify(run.error)).to.equal(true);
    const rows = (await call('POST', '/tables/orders/rows/list', { key: a.userKey, body: {} })).body.agentry;
    expect(rows.map((r: { data: unknown }) => r.data)).to.deep.equal([{ Email: 'ada@example.test', Qty: 42, First: 'A-1' }]);
  });
});
