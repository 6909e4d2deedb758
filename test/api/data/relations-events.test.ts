import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

async function events(accountId: number, rowId: string): Promise<{ type: string; payload: any }[]> {
  return harness()
    .orm.em.getConnection()
    .execute(`select type, payload from outbox_events where account_id = ? and payload->>'rowId' = ? order by id`, [accountId, rowId]);
}

async function fieldId(key: string, object: string, name: string): Promise<number> {
  const detail = await call('GET', `/objects/${object}`, { key });
  return detail.body.fields.find((f: { name: string }) => f.name === name).id;
}

describe('relations between records', () => {
  let a: Account;
  let key: string;
  before(async () => {
    a = await newAccount();
    key = a.userKey;
  });

  it('links a person to a company through the standard Company relation, seen from both ends', async () => {
    const acme = (await call('POST', '/objects/companies/rows', { key, body: { Name: 'Acme' } })).body;
    const person = await call('POST', '/objects/people/rows', { key, body: { 'First name': 'Ada', Company: acme.id } });
    expect(person.status, person.text).to.equal(201);
    expect(person.body.data.Company).to.equal(acme.id);
    const linked = await call('GET', `/objects/people/rows/${person.body.id}/relations/Company`, { key });
    expect(linked.body.agentry.map((r: { id: string }) => r.id)).to.deep.equal([acme.id]);
    expect(linked.body.agentry[0].data.Name).to.equal('Acme');
    const sources = await call('GET', `/objects/people/relations/Company/target/${acme.id}`, { key });
    expect(sources.body.agentry.map((r: { id: string }) => r.id)).to.deep.equal([person.body.id]);

    const unlinked = await call('POST', `/objects/people/rows/${person.body.id}/relations/Company/unlink`, { key, body: { targetIds: [acme.id] } });
    expect(unlinked.body.data.Company).to.equal(null);
    const relinked = await call('POST', `/objects/people/rows/${person.body.id}/relations/Company/link`, { key, body: { targetIds: [acme.id] } });
    expect(relinked.body.data.Company).to.equal(acme.id);

    // Deleting the company empties the relation instead of leaving a dangling id.
    expect((await call('DELETE', `/objects/companies/rows/${acme.id}`, { key })).status).to.equal(204);
    expect((await call('GET', `/objects/people/rows/${person.body.id}`, { key })).body.data.Company).to.equal(null);
  });

  it('refuses targets that do not exist in the related Object', async () => {
    const person = (await call('POST', '/objects/people/rows', { key, body: { 'First name': 'Bo' } })).body;
    const ghost = 'ffffffffffffffffffffffff';
    const onCreate = await call('POST', '/objects/people/rows', { key, body: { Company: ghost } });
    expect(onCreate.status).to.equal(400);
    expect(onCreate.body.details.issues[0]).to.include({ code: 'not_found', path: 'data.Company' });
    const onLink = await call('POST', `/objects/people/rows/${person.id}/relations/Company/link`, { key, body: { targetIds: [ghost] } });
    expect(onLink.status).to.equal(400);
    expect(onLink.body.details.issues[0].code).to.equal('not_found');
    // A company of another account is a record that does not exist here.
    const other = await newAccount();
    const foreign = (await call('POST', '/objects/companies/rows', { key: other.userKey, body: { Name: 'Foreign' } })).body;
    expect((await call('PATCH', `/objects/people/rows/${person.id}`, { key, body: { Company: foreign.id } })).status).to.equal(400);
    expect((await call('GET', `/objects/people/rows/${person.id}/relations/Nope`, { key })).status).to.equal(404);
  });

  it('keeps multi relations in a link table: link, unlink, list both ends, cascade on delete', async () => {
    const companies = (await call('GET', '/objects/companies', { key })).body;
    const nameField = companies.fields.find((f: { name: string }) => f.name === 'Name').id;
    const project = await call('POST', '/objects', {
      key,
      body: {
        name: 'Projects',
        columns: [
          { name: 'Title', type: 'string' },
          { name: 'Partners', type: 'relation', metadata: { mode: 'multi', relatedTableId: companies.id, displayColumn: nameField } },
        ],
      },
    });
    expect(project.status, project.text).to.equal(201);
    const [c1, c2] = (await call('POST', '/objects/companies/rows/bulk', { key, body: { rows: [{ Name: 'One' }, { Name: 'Two' }] } })).body.agentry;
    const p = await call('POST', '/objects/projects/rows', { key, body: { Title: 'Bridge', Partners: [c1.id] } });
    expect(p.body.data.Partners).to.deep.equal([c1.id]);
    const linked = await call('POST', `/objects/projects/rows/${p.body.id}/relations/Partners/link`, { key, body: { targetIds: [c2.id, c1.id] } });
    expect([...linked.body.data.Partners].sort()).to.deep.equal([c1.id, c2.id].sort());
    const rows = await call('GET', `/objects/projects/rows/${p.body.id}/relations/Partners`, { key });
    expect(rows.body.agentry.map((r: { data: { Name: string } }) => r.data.Name).sort()).to.deep.equal(['One', 'Two']);
    const back = await call('GET', `/objects/projects/relations/Partners/target/${c2.id}`, { key });
    expect(back.body.agentry.map((r: { id: string }) => r.id)).to.deep.equal([p.body.id]);
    const filtered = await call('POST', '/objects/projects/rows/count', {
      key,
      body: { filter: { field: 'Partners', operator: 'hasAny', value: [c2.id] } },
    });
    expect(filtered.body.count).to.equal(1);
    await call('POST', `/objects/projects/rows/${p.body.id}/relations/Partners/unlink`, { key, body: { targetIds: [c1.id] } });
    expect((await call('GET', `/objects/projects/rows/${p.body.id}`, { key })).body.data.Partners).to.deep.equal([c2.id]);
    await call('DELETE', `/objects/companies/rows/${c2.id}`, { key });
    expect((await call('GET', `/objects/projects/rows/${p.body.id}`, { key })).body.data.Partners).to.deep.equal([]);
    // The target Object cannot be dropped while a relation points at it.
    expect((await call('DELETE', '/objects/projects', { key })).status).to.equal(204);
  });

  it('assigns users of the account only through the built-in Users field', async () => {
    const ok = await call('POST', '/objects/deals/rows', { key, body: { Name: 'Mine', Users: [a.user.id] } });
    expect(ok.status, ok.text).to.equal(201);
    expect(ok.body.data.Users).to.deep.equal([a.user.id]);
    const other = await newAccount();
    const refused = await call('POST', '/objects/deals/rows', { key, body: { Name: 'Theirs', Users: [other.user.id] } });
    expect(refused.status).to.equal(400);
  });
});

describe('row events in the outbox', () => {
  it('writes OBJECT_RECORD_* and, for People, CONTACT_* events with the change, in the same transaction', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const person = (await call('POST', '/objects/people/rows', { key, body: { 'First name': 'Eve', Email: 'eve@example.test' } })).body;
    const created = await events(a.account.id, person.id);
    expect(created.map((e) => e.type)).to.deep.equal(['OBJECT_RECORD_CREATED', 'CONTACT_CREATED']);
    expect(created[0]!.payload).to.include({ tableName: 'people', kind: 'OBJECT', rowId: person.id });
    expect(created[0]!.payload.row.data.Email).to.equal('eve@example.test');

    await call('PATCH', `/objects/people/rows/${person.id}`, { key, body: { 'Last name': 'Smith' } });
    const updated = (await events(a.account.id, person.id)).slice(2);
    expect(updated.map((e) => e.type)).to.deep.equal(['OBJECT_RECORD_UPDATED', 'CONTACT_UPDATED']);
    expect(updated[0]!.payload.changedFields).to.deep.equal(['Last name']);

    const company = (await call('POST', '/objects/companies/rows', { key, body: { Name: 'Co' } })).body;
    expect((await events(a.account.id, company.id)).map((e) => e.type)).to.deep.equal(['OBJECT_RECORD_CREATED']);
  });

  it('writes TABLE_ROW_* for Tables and no event for a refused write', async () => {
    const a = await newAccount();
    const key = a.userKey;
    await call('POST', '/tables', { key, body: { name: 'log', columns: [{ name: 'Line', type: 'string', required: true }] } });
    const row = (await call('POST', '/tables/log/rows', { key, body: { Line: 'one' } })).body;
    expect((await events(a.account.id, row.id)).map((e) => e.type)).to.deep.equal(['TABLE_ROW_CREATED']);
    await call('PATCH', `/tables/log/rows/${row.id}`, { key, body: { Line: 'two' } });
    expect((await events(a.account.id, row.id)).map((e) => e.type)).to.deep.equal(['TABLE_ROW_CREATED', 'TABLE_ROW_UPDATED']);
    const before: { n: number }[] = await harness()
      .orm.em.getConnection()
      .execute('select count(*)::int as n from outbox_events where account_id = ?', [a.account.id]);
    expect((await call('POST', '/tables/log/rows/bulk', { key, body: { rows: [{ Line: 'ok' }, { Line: null }] } })).status).to.equal(400);
    const after: { n: number }[] = await harness()
      .orm.em.getConnection()
      .execute('select count(*)::int as n from outbox_events where account_id = ?', [a.account.id]);
    expect(after[0]!.n).to.equal(before[0]!.n);
  });
});

describe('record types of records', () => {
  it('puts records in the default record type unless told, filters by record type, and changes it', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const vip = await call('POST', '/objects/companies/record-types', { key, body: { name: 'VIP' } });
    expect(vip.status, vip.text).to.equal(201);
    const detail = (await call('GET', '/objects/companies', { key })).body;
    const defaultType = detail.recordTypes.find((rt: { isDefault: boolean }) => rt.isDefault).id;
    const plain = (await call('POST', '/objects/companies/rows', { key, body: { Name: 'Plain' } })).body;
    expect(plain.recordTypeId).to.equal(defaultType);
    const special = (await call('POST', '/objects/companies/rows', { key, body: { Name: 'Special', recordTypeId: vip.body.id } })).body;
    expect(special.recordTypeId).to.equal(vip.body.id);
    const listed = await call('POST', '/objects/companies/rows/list', { key, body: { recordTypeId: vip.body.id } });
    expect(listed.body.agentry.map((r: { id: string }) => r.id)).to.deep.equal([special.id]);
    const moved = await call('PATCH', `/objects/companies/rows/${plain.id}`, { key, body: { recordTypeId: vip.body.id } });
    expect(moved.body.recordTypeId).to.equal(vip.body.id);
    const other = await newAccount();
    const foreignType = (await call('GET', '/objects/companies', { key: other.userKey })).body.recordTypes[0].id;
    expect((await call('POST', '/objects/companies/rows', { key, body: { Name: 'x', recordTypeId: foreignType } })).status).to.equal(400);
    expect(await fieldId(key, 'companies', 'Name')).to.be.a('number');
  });
});
