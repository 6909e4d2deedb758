import { expect } from 'chai';
import { call, newAccount } from '../setup/http.js';
import { newAgent, ok } from './agents/agent-calls.helpers.js';
import { chain, publish } from './agents/conversation.helpers.js';
import type { Json } from './shop-agent.helpers.js';

const imported = async (key: string, bundle: Json, status: number) => {
  const res = await call('POST', '/imports', { key, body: { bundle } });
  expect(res.status, res.text).to.equal(status);
  return res.body;
};

describe('bundles: secrets', function () {
  this.timeout(60_000);

  it("never exports a secret (a custom tool's or an API node's header, a setting); an import keeps the secrets set where it imports", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    const created = await newAgent(a, 'Secretive');
    const agent = { ...created, base: `/agents/${created.id}` };
    const headers = [
      { key: 'Authorization', value: 'Bearer sk-staging-tool' },
      { key: 'X-Trace', value: 'visible' },
    ];
    const tool = await ok('POST', '/custom-tools', a.userKey, { name: 'Orders', url: 'https://shop.test/orders', method: 'GET', headers });
    await ok('PUT', `${agent.base}/agent-setting`, a.userKey, { customToolIds: [tool.id] }, 200);
    const api = { type: 'API', data: { url: 'https://shop.test/stock', headers: [{ key: 'X-Api-Key', value: 'sk-staging-node' }] } };
    const [nodeId] = await chain(a, agent, agent.defaultFlowId, [api], 'start_1');
    await publish(a, agent, agent.defaultFlowId);

    const bundle = await ok('GET', `${agent.base}/export`, a.userKey);
    expect(JSON.stringify(bundle)).to.not.contain('sk-staging');
    expect(bundle.secretsRemoved).to.deep.equal([
      '/agent/flows/0/draft/nodes/1/data/headers/0/value',
      '/agent/flows/0/live/nodes/1/data/headers/0/value',
      '/resources/0/values/headers/0/value',
    ]);
    expect(bundle.resources[0].values.headers).to.deep.equal([
      { key: 'Authorization', value: null },
      { key: 'X-Trace', value: 'visible' },
    ]);
    const made = await imported(b.userKey, bundle, 201);

    // Production sets its own secrets on what the import made.
    const toolB = made.ids[`resource:${tool.id}`];
    const flowB = `/agents/${made.target.id}/flows/${made.ids[`flow:${agent.defaultFlowId}`]}`;
    const prodHeaders = [{ key: 'Authorization', value: 'Bearer sk-prod-tool' }, headers[1]];
    await ok('PUT', `/custom-tools/${toolB}`, b.userKey, { headers: prodHeaders }, 200);
    const prodNode = { ...api, data: { ...api.data, headers: [{ key: 'X-Api-Key', value: 'sk-prod-node' }] } };
    await ok('PUT', `${flowB}/nodes/${nodeId}`, b.userKey, prodNode, 200);
    await ok('POST', `${flowB}/publish`, b.userKey, {});

    // The next promotion changes the description only: B's secrets stay, and no plan line names one.
    await ok('PUT', agent.base, a.userKey, { description: 'Knows the stock' }, 200);
    const plan = await imported(b.userKey, await ok('GET', `${agent.base}/export`, a.userKey), 200);
    expect(plan.update.map((u: Json) => [u.kind, u.changes])).to.deep.equal([['agent', ['description null → "Knows the stock"']]]);
    expect(JSON.stringify(plan)).to.not.match(/sk-/);
    expect((await ok('GET', `/custom-tools/${toolB}`, b.userKey)).headers).to.deep.equal(prodHeaders);
    const live = await ok('GET', `${flowB}/versions/2`, b.userKey);
    expect(live.nodes.find((n: Json) => n.nodeId === nodeId).data.headers).to.deep.equal(prodNode.data.headers);
    expect((await ok('GET', `${flowB}/versions`, b.userKey)).agentry, 'no version of its own').to.have.length(2);

    // A workflow's API node: the same.
    const workflowId = (await ok('POST', '/workflows', a.userKey, { name: 'Sync' })).id as number;
    await ok('POST', `/workflows/${workflowId}/nodes`, a.userKey, { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } });
    await ok('POST', `/workflows/${workflowId}/nodes`, a.userKey, {
      type: 'API',
      data: { url: 'https://crm.test/x', parameters: [{ key: 'api_key', value: 'sk-staging-query' }] },
    });
    const workflow = await ok('GET', `/workflows/${workflowId}/export`, a.userKey);
    expect(JSON.stringify(workflow)).to.not.contain('sk-staging');
    expect(workflow.secretsRemoved).to.deep.equal(['/workflow/draft/nodes/1/data/parameters/0/value']);
    await imported(b.userKey, workflow, 201);
  });
});
