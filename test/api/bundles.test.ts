import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { dropDatabase } from '../../db/database.js';
import { runAdmin } from '../../scripts/admin.js';
import { harness, migratedDatabase, TEST_SETTINGS_KEY } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { issueAt, ok, refused } from './agents/agent-calls.helpers.js';
import { shopAgent, withoutIds, type Json } from './shop-agent.helpers.js';

describe('bundles: agents and workflows between accounts and instances', function () {
  this.timeout(120_000);

  it('moves an agent to another account (dry run, then applied) and to another instance; the exports agree but for ids; a re-import changes nothing', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const agent = await shopAgent(a);
    const exported = await ok('GET', `${agent.base}/export?documents=true`, a.userKey);
    expect(exported).to.include({ format: 'agentry-bundle', formatVersion: 1, kind: 'agent' });
    expect(exported.checksum).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(Object.keys(exported)).to.deep.equal([...Object.keys(exported)].sort());
    expect(await ok('GET', `${agent.base}/export?documents=true`, a.generalKey), 'the same bytes twice').to.deep.equal(exported);
    expect(exported.resources.map((r: Json) => [r.kind, r.name, r.documents])).to.deep.equal([
      ['KNOWLEDGE_BASE', 'Handbook', [{ title: 'Returns', content: '# Returns\n\nWithin 30 days.' }]],
    ]);
    expect(exported.agent.flows.map((f: Json) => [f.name, f.draft.nodes.length, f.live?.nodes.length])).to.deep.equal([
      ['Start', 2, 2],
      ['Orders', 3, 2],
    ]);

    const dry = await call('POST', '/imports', { key: b.userKey, body: { bundle: exported, dryRun: true } });
    expect(dry.status, dry.text).to.equal(200);
    expect(dry.body).to.deep.include({ dryRun: true, kind: 'agent', action: 'create', checksumMatches: true, conflicts: [] });
    expect(dry.body.create.map((c: Json) => [c.kind, c.name, c.id])).to.deep.equal([
      ['agent', 'Shop', null],
      ['KNOWLEDGE_BASE', 'Handbook', null],
      ['intent', 'Orders', null],
      ['flow', 'Start', null],
      ['flow', 'Orders', null],
    ]);
    expect((await ok('GET', '/agents', b.userKey)).agentry, 'a dry run changes nothing').to.deep.equal([]);

    const applied = await ok('POST', '/imports', b.userKey, { bundle: exported });
    expect({ ...applied, create: undefined, ids: undefined, target: undefined }).to.deep.equal({
      ...dry.body,
      dryRun: false,
      create: undefined,
      ids: undefined,
      target: undefined,
    });
    expect(Object.values(applied.ids).every((id) => id !== null)).to.equal(true);
    const imported = await ok('GET', `/agents/${applied.target.id}`, b.userKey);
    expect(imported).to.include({ name: 'Shop', isOffline: true });
    const again = await ok('GET', `/agents/${applied.target.id}/export?documents=true`, b.userKey);
    expect(withoutIds(again)).to.deep.equal(withoutIds(exported));
    expect(again.agent.settings.SETTING.knowledgeBaseIds).to.deep.equal([applied.ids[`resource:${exported.resources[0].ref}`]]);

    const reimport = await call('POST', '/imports', { key: b.userKey, body: { bundle: exported } });
    expect(reimport.status, reimport.text).to.equal(200);
    expect(reimport.body).to.deep.include({ action: 'unchanged', create: [], target: { kind: 'agent', id: applied.target.id } });
    expect((await ok('GET', '/agents', b.userKey)).agentry).to.have.length(1);
    expect((await ok('GET', '/knowledge-bases', b.userKey)).agentry).to.have.length(1);

    // Another instance: its own database, through the admin command line, from a file.
    const dir = mkdtempSync(join(tmpdir(), 'agentry-bundle-'));
    const file = join(dir, 'shop.agent.json');
    const env = { ...process.env, DATABASE_URL: harness().databaseUrl, SETTINGS_ENCRYPTION_KEY: TEST_SETTINGS_KEY };
    const written = await runAdmin(['export', '--account', String(a.account.id), '--agent', agent.id, '--documents', '--file', file], env);
    expect(written.code, written.stderr).to.equal(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.deep.equal(exported);
    const other = await migratedDatabase();
    try {
      const c = await bootstrapAccount(other.orm.em.fork(), 'Elsewhere', 'owner@elsewhere.test');
      const otherEnv = { ...env, DATABASE_URL: other.databaseUrl };
      const dryCli = await runAdmin(['import', '--account', String(c.account.id), '--file', file, '--dry-run'], otherEnv);
      expect(dryCli.stdout).to.match(/^dry run: agent \(new\)\n {2}create agent {12}"Shop" {2}\S+ → \(new\)/);
      const plan = JSON.parse((await runAdmin(['import', '--account', String(c.account.id), '--file', file, '--json'], otherEnv)).stdout);
      expect(plan).to.include({ dryRun: false, action: 'create' });
      const back = await runAdmin(
        ['export', '--account', String(c.account.id), '--agent', String(plan.target.id), '--documents', '--json'],
        otherEnv,
      );
      expect(withoutIds(JSON.parse(back.stdout))).to.deep.equal(withoutIds(exported));
      const twice = JSON.parse((await runAdmin(['import', '--account', String(c.account.id), '--file', file, '--json'], otherEnv)).stdout);
      expect(twice).to.deep.include({ action: 'unchanged', target: { kind: 'agent', id: plan.target.id } });
    } finally {
      await other.orm.close();
      await dropDatabase(other.databaseUrl);
    }
  });

  it('refuses a bundle edited by hand with a bad graph, naming the node, and imports nothing', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const agent = await shopAgent(a);
    const bundle = await ok('GET', `${agent.base}/export`, a.userKey);
    const start = bundle.agent.flows[0];
    const node = start.draft.nodes.find((n: Json) => n.type === 'SAY_AI');
    node.data.message = 42;
    for (const dryRun of [true, false]) {
      const error = await refused('POST', '/imports', b.userKey, 400, { bundle, dryRun });
      expect(error.message).to.match(new RegExp(`^flow "Start" \\(draft\\): node ${node.nodeId} \\(SAY_AI\\): data\\.message `));
      issueAt(error, 'bundle.agent.flows[0].draft.nodes[1].data.message');
    }
    node.data.message = 'Hi';
    start.draft.nodes.push({ ...node, nodeId: 'nope_1', type: 'NOPE', data: { type: 'NOPE' } });
    expect((await refused('POST', '/imports', b.userKey, 400, { bundle })).message).to.match(
      /^flow "Start" \(draft\): node nope_1 \(NOPE\): type must be one of/,
    );
    expect((await ok('GET', '/agents', b.userKey)).agentry).to.deep.equal([]);
    expect((await ok('GET', '/knowledge-bases', b.userKey)).agentry).to.deep.equal([]);
    await refused('POST', '/imports', b.userKey, 400, { bundle: { ...bundle, format: 'zip' } });
    await refused('POST', '/imports', b.generalKey, 403, { bundle });
    await refused('GET', `${agent.base}/export`, b.userKey, 404);
  });

  it('moves a workflow with its variables and webhook definitions; it starts DRAFT unless activated, and never carries a token', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const id = (await ok('POST', '/workflows', a.userKey, { name: 'Enrich', concurrencyLimit: 3 })).id as number;
    await ok('POST', `/workflows/${id}/variables`, a.userKey, { name: 'score', description: 'Lead score' });
    await ok('POST', `/workflows/${id}/nodes`, a.userKey, { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } });
    await ok('POST', `/workflows/${id}/publish`, a.userKey, { message: 'first' });
    const bundle = await ok('GET', `/workflows/${id}/export`, a.userKey);
    expect(bundle.workflow).to.deep.include({ name: 'Enrich', concurrencyLimit: 3, variables: [{ name: 'score', description: 'Lead score' }] });
    expect(JSON.stringify(bundle)).to.not.match(/token/i);
    const plan = await ok('POST', '/imports', b.userKey, { bundle });
    const imported = await ok('GET', `/workflows/${plan.target.id}`, b.userKey);
    expect(imported).to.include({ name: 'Enrich', status: 'DRAFT', triggerType: 'INCOMING_WEBHOOK', concurrencyLimit: 3 });
    expect((await ok('GET', `/workflows/${plan.target.id}/versions`, b.userKey)).agentry.map((v: Json) => v.version)).to.deep.equal([1]);
    const c = await newAccount();
    const active = await ok('POST', '/imports', c.userKey, { bundle, activate: true });
    expect((await ok('GET', `/workflows/${active.target.id}`, c.userKey)).status).to.equal('ACTIVE');
    expect((await call('POST', '/imports', { key: b.userKey, body: { bundle } })).body.action).to.equal('unchanged');
  });
});
