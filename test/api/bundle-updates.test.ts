import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { addSocialAccount, connectMessagingNumber } from '../../db/channels/numbers-and-pages.service.js';
import { admin } from '../setup/admin-cli.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { ok, refused, type Account } from './agents/agent-calls.helpers.js';
import { shopAgent, withoutIds, type Json } from './shop-agent.helpers.js';

const em = () => harness().orm.em.fork();
const names = (items: Json[]) => items.map((i) => `${i.kind} ${i.name}`);
const imported = (key: string, bundle: Json, dryRun = false) => call('POST', '/imports', { key, body: { bundle, dryRun } });

/** A Table "orders" with a select field and its options, a text field, and a relation to "customers". */
async function ordersTable(a: Account): Promise<number> {
  await ok('POST', '/tables', a.userKey, { name: 'customers', columns: [{ name: 'Email', type: 'string' }] });
  const columns = [
    { name: 'Item', type: 'string' },
    { name: 'Stage', type: 'select', metadata: { mode: 'singleSelect' } },
  ];
  const orders = await ok('POST', '/tables', a.userKey, { name: 'orders', columns });
  const stage = orders.fields.find((f: Json) => f.name === 'Stage').id;
  for (const name of ['new', 'paid']) await ok('POST', `/tables/orders/fields/${stage}/tags`, a.userKey, { name });
  const customers = await ok('GET', '/tables/customers', a.userKey);
  const email = customers.fields.find((f: Json) => f.name === 'Email').id;
  const relation = { name: 'Customer', type: 'relation', metadata: { mode: 'single', relatedTableId: customers.id, displayColumn: email } };
  await ok('POST', '/tables/orders/fields', a.userKey, relation);
  return orders.id;
}

describe('bundles: imported again, tables, references to connect', function () {
  this.timeout(60_000);

  it('updates what an earlier import made in place (same ids), the plan naming each change; the same bundle again keeps all', async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    const agent = await shopAgent(a);
    await connectMessagingNumber(em(), a.account.id, {
      phoneNumber: '+14155550123',
      phoneNumberId: '1090001',
      assistantId: agent.id,
      displayName: 'Shop',
    });
    const page = `${a.account.id}077`;
    const pages = em();
    Object.assign(await addSocialAccount(pages, a.account.id, { platform: 'FACEBOOK', name: 'Shop page', externalId: page }), {
      messagingId: page,
      assistantId: agent.id,
    });
    await pages.flush();
    const first = await ok('GET', `${agent.base}/export`, a.userKey);
    expect(first.agent.channels).to.deep.equal([
      { channel: 'messaging', id: '1090001', name: 'Shop (+14155550123)' },
      { channel: 'facebook', id: page, name: 'Shop page' },
    ]);
    const made = await ok('POST', '/imports', b.userKey, { bundle: first });
    expect(made.connect.map((c: Json) => c.reference)).to.deep.equal(['messagingNumber:1090001', `page:${page}`]);
    expect(made.connect[0].message).to.contain(`--channel messaging --id 1090001 --assistant ${made.target.id}`);
    expect(made.connect[1].message).to.match(/^Messenger page "Shop page" answered this agent there: .* --channel facebook /);

    // In account A: a new greeting published, the intent's phrases, a variable and the description changed.
    const say = first.agent.flows[0].live.nodes.find((n: Json) => n.type === 'SAY_AI');
    await ok(
      'PUT',
      `${agent.base}/flows/${agent.defaultFlowId}/nodes/${say.nodeId}`,
      a.userKey,
      { type: 'SAY_AI', data: { message: 'Hi again' } },
      200,
    );
    await ok('POST', `${agent.base}/flows/${agent.defaultFlowId}/publish`, a.userKey, {});
    await ok('PUT', `${agent.base}/intents/${first.agent.intents[0].ref}`, a.userKey, { trainingPhrases: ['where is my order', 'track'] }, 200);
    await ok('POST', `${agent.base}/variables`, a.userKey, { name: 'email' });
    await ok('PUT', agent.base, a.userKey, { description: 'Answers shoppers' }, 200);
    const second = await ok('GET', `${agent.base}/export`, a.userKey);

    const dry = await imported(b.userKey, second, true);
    expect(dry.status, dry.text).to.equal(200);
    expect(dry.body).to.deep.include({ action: 'update', create: [], target: made.target, conflicts: [] });
    const changes = Object.fromEntries(dry.body.update.map((u: Json) => [`${u.kind} ${u.name}`, u.changes]));
    expect(changes).to.deep.equal({
      'agent Shop': ['description null → "Answers shoppers"', 'variable email added'],
      'intent Orders': ['trainingPhrases changed'],
      'flow Start': [
        `live graph published as version 2: changed SAY_AI ${say.nodeId} ("say_ai"): data.message "Welcome to {agent_name}" → "Hi again"`,
      ],
    });
    expect(names(dry.body.keep)).to.deep.equal(['KNOWLEDGE_BASE Handbook', 'flow Orders']);
    expect(dry.body.ids, 'what is updated keeps its id, even in a dry run').to.deep.equal({ ...made.ids, 'variable:email': null });
    const flowB = `/agents/${made.target.id}/flows/${made.ids[`flow:${first.agent.flows[0].ref}`]}`;
    expect((await ok('GET', `${flowB}/versions`, b.userKey)).agentry, 'a dry run changes nothing').to.have.length(1);

    const file = join(mkdtempSync(join(tmpdir(), 'agentry-bundle-')), 'shop.agent.json');
    writeFileSync(file, JSON.stringify(second));
    const cli = await admin('import', '--account', String(b.account.id), '--file', file, '--dry-run');
    expect(cli.stdout, cli.stderr).to.contain(`dry run: agent ${made.target.id} (update)\n  update agent            "Shop"`);
    expect(cli.stdout).to.contain(
      `  update flow             "Start"  ${first.agent.flows[0].ref} → ${made.ids[`flow:${first.agent.flows[0].ref}`]}\n           live graph`,
    );
    expect(cli.stdout).to.contain('  keep   KNOWLEDGE_BASE   "Handbook"');
    const applied = await imported(b.userKey, second);
    expect(applied.status, applied.text).to.equal(200);
    expect(applied.body.ids['variable:email']).to.be.a('number');
    expect({ ...applied.body, dryRun: true, ids: { ...applied.body.ids, 'variable:email': null } }).to.deep.equal(dry.body);
    expect((await ok('GET', `${flowB}/versions`, b.userKey)).agentry.map((v: Json) => v.version)).to.deep.equal([2, 1]);
    expect((await ok('GET', '/agents', b.userKey)).agentry).to.have.length(1);
    const back = await ok('GET', `/agents/${made.target.id}/export`, b.userKey);
    expect(withoutIds({ ...back, agent: { ...back.agent, channels: [] } })).to.deep.equal(
      withoutIds({ ...second, agent: { ...second.agent, channels: [] } }),
    );
    const again = await imported(b.userKey, second);
    expect(again.body).to.deep.include({ action: 'unchanged', target: made.target, update: [] });
  });

  it('carries the tables a workflow writes: an import creates missing ones, or lists them to connect; webhooks get new URLs', async () => {
    const [a, b, c] = [await newAccount(), await newAccount(), await newAccount()];
    const tableId = await ordersTable(a);
    const hook = await ok('POST', '/incoming-webhooks', a.userKey, { name: 'Shop orders', useAuthentication: false });
    const id = (await ok('POST', '/workflows', a.userKey, { name: 'Record orders' })).id as number;
    const entry = await ok('POST', `/workflows/${id}/nodes`, a.userKey, {
      type: 'WEBHOOK',
      data: { url: 'https://hooks.example.test/in', triggerByWebhookIds: [hook.id] },
    });
    const write = { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData: { Item: '{trigger_payload.item}' } } };
    const written = await ok('POST', `/workflows/${id}/nodes`, a.userKey, write);
    await ok('POST', `/workflows/${id}/edges`, a.userKey, {
      source: entry.nodes[0].nodeId,
      handle: 'default',
      targetEdge: written.nodes.at(-1).nodeId,
    });
    await ok('POST', `/workflows/${id}/publish`, a.userKey, {});
    const withTables = await ok('GET', `/workflows/${id}/export?tables=true`, a.userKey);
    expect(withTables.tables.map((t: Json) => [t.name, t.fields.map((f: Json) => f.name)])).to.deep.equal([
      ['orders', ['Item', 'Stage', 'Customer']],
    ]);
    expect(withTables.tables[0].fields[2].metadata).to.deep.include({ relatedTable: { kind: 'TABLE', name: 'customers' }, displayColumn: 'Email' });

    // B has "customers" (the relation's target) but not "orders": the import creates it, options and relation included.
    await ok('POST', '/tables', b.userKey, { name: 'customers', columns: [{ name: 'Email', type: 'string' }] });
    const dry = await imported(b.userKey, withTables, true);
    expect(dry.status, dry.text).to.equal(200);
    expect(names(dry.body.create)).to.deep.equal(['workflow Record orders', 'TABLE orders', 'incomingWebhook Shop orders']);
    expect(dry.body.connect).to.deep.equal([
      { reference: `webhook:${hook.id}`, where: 'webhooks', message: 'incoming webhook "Shop orders" has a new URL here: point its senders at it' },
    ]);
    const plan = await ok('POST', '/imports', b.userKey, { bundle: withTables });
    const newHook = plan.ids[`webhook:${hook.id}`];
    expect(plan.connect[0].message).to.match(new RegExp(`a new URL here: http\\S+/webhooks/${newHook}: point`));
    const orders = await ok('GET', '/tables/orders', b.userKey);
    expect(orders.id).to.equal(plan.ids[`table:${tableId}`]);
    const exported = await ok('GET', '/tables/orders/export', b.userKey);
    expect(exported.table.fields).to.deep.equal(withTables.tables[0].fields);
    const graph = await ok('GET', `/workflows/${plan.target.id}/graph`, b.userKey);
    expect(graph.nodes.map((n: Json) => n.data.tableId ?? n.data.triggerByWebhookIds)).to.deep.equal([[newHook], orders.id]);

    // Active in B, then changed in A: the update keeps B's live graph and puts the change in its draft, to publish.
    await ok('PUT', `/workflows/${plan.target.id}`, b.userKey, { status: 'ACTIVE' }, 200);
    const writer = written.nodes.at(-1).nodeId;
    await ok('PUT', `/workflows/${id}/nodes/${writer}`, a.userKey, { ...write, data: { ...write.data, rowData: { Item: 'x' } } }, 200);
    await ok('POST', `/workflows/${id}/publish`, a.userKey, {});
    const changed = await imported(b.userKey, await ok('GET', `/workflows/${id}/export?tables=true`, a.userKey));
    expect(changed.body, changed.text).to.deep.include({ action: 'update', create: [], connect: [] });
    expect(changed.body.conflicts).to.deep.equal([
      `workflow ${plan.target.id} is ACTIVE here: its live graph is left as it is and its draft holds the bundle's live graph ` +
        `(changed DYNAMIC_TABLES ${writer} ("dynamic_tables"): data.rowData.Item "{trigger_payload.item}" → "x"): publish it (POST /workflows/${plan.target.id}/publish) so its schedules follow`,
    ]);
    expect((await ok('GET', `/workflows/${plan.target.id}/versions`, b.userKey)).agentry).to.have.length(1);

    // C has no "orders" and the bundle only names it: the dry run lists it to connect; applying refuses, naming the node.
    const named = await ok('GET', `/workflows/${id}/export`, a.userKey);
    expect(named.tables).to.deep.equal([{ ...withTables.tables[0], fields: undefined }].map((t) => JSON.parse(JSON.stringify(t))));
    const missing = await imported(c.userKey, named, true);
    expect(missing.status, missing.text).to.equal(200);
    expect(missing.body.connect.map((x: Json) => [x.reference, x.message])).to.deep.include([
      `table:${tableId}`,
      'Table "orders" is missing here: create it, or export with tables=true to carry its schema',
    ]);
    const error = await refused('POST', '/imports', c.userKey, 400, { bundle: named });
    expect(error.message).to.match(/^workflow "Record orders" \(live\): node node_\S+ \(DYNAMIC_TABLES\): data\.tableId no Table or Object/);
    expect((await ok('GET', '/workflows', c.userKey)).agentry).to.deep.equal([]);
  });

  it("imports a Table's or Object's schema: created, then what it lacks added; a field of another type is a conflict", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    await ordersTable(a);
    const bundle = await ok('GET', '/tables/orders/export', a.generalKey);
    expect(bundle).to.include({ format: 'agentry-bundle', kind: 'table' });
    expect(Object.keys(bundle)).to.deep.equal([...Object.keys(bundle)].sort());
    expect(await ok('GET', '/tables/orders/export', a.userKey), 'the same bytes twice').to.deep.equal(bundle);
    await refused('GET', '/tables/orders/export', b.userKey, 404);
    const noCustomers = await imported(b.userKey, bundle);
    expect(noCustomers.status, noCustomers.text).to.equal(201);
    expect(noCustomers.body.conflicts).to.deep.equal([
      'Table "orders": field "Customer" relates to Table "customers", which is not here: create it first: left out',
    ]);

    await ok('POST', '/tables', b.userKey, { name: 'customers', columns: [{ name: 'Email', type: 'string' }] });
    const item = (await ok('GET', '/tables/orders', b.userKey)).fields.find((f: Json) => f.name === 'Item').id;
    await ok('DELETE', `/tables/orders/fields/${item}`, b.userKey, undefined, 204);
    await ok('POST', '/tables/orders/fields', b.userKey, { name: 'Item', type: 'number' });
    const update = await imported(b.userKey, bundle);
    expect(update.status, update.text).to.equal(200);
    expect(update.body).to.deep.include({
      action: 'update',
      create: [],
      update: [
        { kind: 'TABLE', name: 'orders', sourceId: bundle.table.ref, id: noCustomers.body.target.id, changes: ['field "Customer" (relation) added'] },
      ],
      conflicts: ['Table "orders": field "Item" is number here, string in the bundle: left as it is'],
    });
    expect((await imported(b.userKey, bundle)).body, 'nothing left to add').to.deep.include({ action: 'unchanged', update: [] });

    const object = { ...bundle, table: { ...bundle.table, kind: 'OBJECT', name: 'shipments' } };
    const created = await imported(b.userKey, object);
    expect(created.body, created.text).to.deep.include({ action: 'create', kind: 'table', checksumMatches: false });
    expect((await ok('GET', '/objects/shipments', b.userKey)).fields.map((f: Json) => f.name)).to.include.members(['Item', 'Stage']);
  });
});
