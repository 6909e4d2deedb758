import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { admin } from '../setup/admin-cli.js';
import { call, newAccount } from '../setup/http.js';
import { newAgent, ok } from './agents/agent-calls.helpers.js';
import { shopAgent, withoutIds, type Json } from './shop-agent.helpers.js';

const items = (list: Json[]) => list.map((i) => `${i.kind} ${i.name}`);
const imported = async (key: string, body: Json, status = 200) => {
  const res = await call('POST', '/imports', { key, body });
  expect(res.status, res.text).to.equal(status);
  return res.body;
};

describe('bundles: what a promoted bundle no longer has', function () {
  this.timeout(90_000);

  it('lists what an earlier import made and the bundle dropped as stale, and removes it only with prune, unless something here uses it', async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    const agent = await shopAgent(a);
    const first = await ok('GET', `${agent.base}/export`, a.userKey);
    const made = await imported(b.userKey, { bundle: first }, 201);
    const [start, orders] = first.agent.flows;
    const kbHere = made.ids[`resource:${first.resources[0].ref}`];

    // Staging (A) drops the Orders flow, its intent, the variable and the knowledge base.
    await ok('DELETE', `${agent.base}/flows/${orders.ref}`, a.userKey, undefined, 204);
    await ok('DELETE', `${agent.base}/intents/${first.agent.intents[0].ref}`, a.userKey, undefined, 204);
    const variable = (await ok('GET', `${agent.base}/variables`, a.userKey)).agentry.find((v: Json) => v.name === 'order_id');
    await ok('DELETE', `${agent.base}/variables/${variable.id}`, a.userKey, undefined, 204);
    await ok('PUT', `${agent.base}/agent-setting`, a.userKey, { knowledgeBaseIds: [] }, 200);
    const second = await ok('GET', `${agent.base}/export`, a.userKey);
    expect(second.resources).to.deep.equal([]);

    const dropped = ['flow Orders', 'intent Orders', 'variable order_id', 'KNOWLEDGE_BASE Handbook'];
    const dry = await imported(b.userKey, { bundle: second, dryRun: true });
    expect(dry).to.deep.include({ action: 'update', remove: [], conflicts: [] });
    expect(items(dry.stale)).to.deep.equal(dropped);
    expect(dry.stale[0]).to.deep.equal({ kind: 'flow', name: 'Orders', sourceId: orders.ref, id: made.ids[`flow:${orders.ref}`] });
    const kept = await imported(b.userKey, { bundle: second });
    expect(items(kept.stale), 'without prune, nothing is removed').to.deep.equal(dropped);
    expect(items(kept.update)).to.deep.equal(['agent Shop']);
    expect((await ok('GET', `/agents/${made.target.id}/flows`, b.userKey)).agentry).to.have.length(2);
    const same = await imported(b.userKey, { bundle: second });
    expect(same).to.deep.include({ action: 'unchanged', remove: [] });
    expect(items(same.stale), 'the same bundle again still lists them').to.deep.equal(dropped);

    // Production (B) has another agent using the knowledge base: a prune leaves it, naming why.
    const other = await newAgent(b, 'Other');
    await ok('PUT', `/agents/${other.id}/agent-setting`, b.userKey, { knowledgeBaseIds: [kbHere] }, 200);
    const blocked = await imported(b.userKey, { bundle: second, dryRun: true, prune: true });
    expect(blocked).to.deep.include({ dryRun: true, action: 'update' });
    expect(items(blocked.remove)).to.deep.equal(dropped.slice(0, 3));
    expect(items(blocked.stale)).to.deep.equal(['KNOWLEDGE_BASE Handbook']);
    expect(blocked.conflicts).to.deep.equal([
      'KNOWLEDGE_BASE "Handbook" is no longer in the bundle but cannot be removed: agent "Other" settings still names it: left as it is',
    ]);
    expect((await ok('GET', `/agents/${made.target.id}/intents`, b.userKey)).agentry, 'a dry run removes nothing').to.have.length(1);

    await ok('PUT', `/agents/${other.id}/agent-setting`, b.userKey, { knowledgeBaseIds: [] }, 200);
    const file = join(mkdtempSync(join(tmpdir(), 'agentry-bundle-')), 'shop.agent.json');
    writeFileSync(file, JSON.stringify(second));
    const cli = await admin('import', '--account', String(b.account.id), '--file', file, '--prune');
    expect(cli.code, cli.stderr).to.equal(0);
    expect(cli.stdout).to.contain(`  remove flow             "Orders"  ${orders.ref} → ${made.ids[`flow:${orders.ref}`]}\n`);
    expect(cli.stdout).to.contain(`  remove KNOWLEDGE_BASE   "Handbook"  ${first.resources[0].ref} → ${kbHere}`);
    expect((await ok('GET', `/agents/${made.target.id}/flows`, b.userKey)).agentry.map((f: Json) => f.name)).to.deep.equal([start.name]);
    expect((await ok('GET', `/agents/${made.target.id}/intents`, b.userKey)).agentry).to.deep.equal([]);
    expect((await ok('GET', `/agents/${made.target.id}/variables`, b.userKey)).agentry).to.deep.equal([]);
    expect((await ok('GET', '/knowledge-bases', b.userKey)).agentry).to.deep.equal([]);
    const mirrored = await ok('GET', `/agents/${made.target.id}/export`, b.userKey);
    expect(withoutIds({ ...mirrored, agent: { ...mirrored.agent, channels: [] } }), 'production mirrors staging').to.deep.equal(withoutIds(second));
    const again = await imported(b.userKey, { bundle: second, prune: true });
    expect(again).to.deep.include({ action: 'unchanged', remove: [], stale: [] });

    // Deleted here since, the agent is imported anew by the same bundle, and the plan says so.
    await ok('DELETE', `/agents/${made.target.id}`, b.userKey, undefined, 204);
    const anew = await imported(b.userKey, { bundle: second }, 201);
    expect(anew.target.id).to.not.equal(made.target.id);
    expect(anew.conflicts).to.deep.equal([
      `agent ${first.source.id} was imported before as ${made.target.id}, which is no longer here: imported anew`,
    ]);
  });

  it("prunes a workflow's dropped webhook and variable; a webhook its live graph still names here stays, named under conflicts", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    const hooks = [];
    for (const name of ['Shop orders', 'Old shop']) hooks.push(await ok('POST', '/incoming-webhooks', a.userKey, { name, useAuthentication: false }));
    const id = (await ok('POST', '/workflows', a.userKey, { name: 'Record orders' })).id as number;
    await ok('POST', `/workflows/${id}/variables`, a.userKey, { name: 'legacy', description: 'Unused now' });
    const data = { url: 'https://hooks.example.test/in', triggerByWebhookIds: hooks.map((h) => h.id) };
    const entry = (await ok('POST', `/workflows/${id}/nodes`, a.userKey, { type: 'WEBHOOK', data })).nodes[0].nodeId;
    await ok('POST', `/workflows/${id}/publish`, a.userKey, {});
    const made = await imported(b.userKey, { bundle: await ok('GET', `/workflows/${id}/export`, a.userKey) }, 201);
    const oldHere = made.ids[`webhook:${hooks[1].id}`];

    await ok('PUT', `/workflows/${id}/nodes/${entry}`, a.userKey, { type: 'WEBHOOK', data: { ...data, triggerByWebhookIds: [hooks[0].id] } }, 200);
    const legacy = (await ok('GET', `/workflows/${id}/variables`, a.userKey)).agentry[0];
    await ok('DELETE', `/workflows/${id}/variables/${legacy.id}`, a.userKey, undefined, 204);
    await ok('POST', `/workflows/${id}/publish`, a.userKey, {});
    const second = await ok('GET', `/workflows/${id}/export`, a.userKey);

    // ACTIVE here, the workflow keeps its live graph (the bundle's waits in its draft), which still names the old webhook.
    await ok('PUT', `/workflows/${made.target.id}`, b.userKey, { status: 'ACTIVE' }, 200);
    const held = await imported(b.userKey, { bundle: second, prune: true });
    expect(items(held.remove)).to.deep.equal(['variable legacy']);
    expect(items(held.stale)).to.deep.equal(['incomingWebhook Old shop']);
    expect(held.conflicts.at(-1)).to.equal(
      'incomingWebhook "Old shop" is no longer in the bundle but cannot be removed: workflow "Record orders" still names it: left as it is',
    );
    expect((await ok('GET', '/incoming-webhooks', b.userKey)).agentry.map((w: Json) => w.name).sort()).to.deep.equal(['Old shop', 'Shop orders']);

    // Published here, the live graph no longer names it: the next prune removes it (its URL answers 404 from then on).
    await ok('POST', `/workflows/${made.target.id}/publish`, b.userKey, {});
    const pruned = await imported(b.userKey, { bundle: second, prune: true });
    expect(pruned.conflicts).to.deep.equal([]);
    expect(pruned).to.deep.include({ action: 'update', stale: [] });
    expect(pruned.remove).to.deep.equal([{ kind: 'incomingWebhook', name: 'Old shop', sourceId: hooks[1].id, id: oldHere }]);
    expect((await ok('GET', '/incoming-webhooks', b.userKey)).agentry.map((w: Json) => w.name)).to.deep.equal(['Shop orders']);
    expect((await call('POST', `/webhooks/${oldHere}`, { body: { item: 'x' } })).status).to.equal(404);
  });
});
