import { expect } from 'chai';
import { call } from '../../setup/http.js';
import { account, client, createTable, expectError, expectIssue, ok, type Client } from './helpers.js';

const STANDARD = ['companies', 'people', 'deals', 'tickets'];

describe('Objects', () => {
  let api: Client;
  let general: Client;

  before(async () => {
    const a = await account();
    api = client(a.key);
    general = client(a.general);
  });

  it('lists the four standard Objects of a new account, with their fields', async () => {
    const list = ok(await api.get('/objects'));
    expect(list.nextCursor).to.equal(null);
    const standard = list.agentry.filter((o: any) => o.isSystem);
    expect(standard.map((o: any) => o.name)).to.have.members(STANDARD);
    expect(standard.map((o: any) => o.displayName)).to.have.members(['Companies', 'People', 'Deals', 'Tickets']);
    for (const o of standard) expect(o.kind).to.equal('object');

    const people = ok(await api.get('/objects/people'));
    expect(people.fields.map((f: any) => f.name)).to.include.members(['First name', 'Last name', 'Email', 'Phone', 'Company', 'Users']);
    expect(people.fields.find((f: any) => f.name === 'Email')).to.deep.include({ type: 'string', metadata: { format: 'email', extendedField: false } });
    const companies = ok(await api.get('/objects/companies'));
    const company = people.fields.find((f: any) => f.name === 'Company');
    expect(company.type).to.equal('relation');
    expect(company.metadata.relatedTableId).to.equal(companies.id);
    expect(companies.fields.map((f: any) => f.name)).to.not.include('Users');
    const deals = ok(await api.get('/objects/deals'));
    const stage = deals.fields.find((f: any) => f.name === 'Stage');
    expect(stage.type).to.equal('select');
    expect(stage.options.map((o: any) => o.name)).to.deep.equal(['Lead', 'Qualified', 'Proposal', 'Won', 'Lost']);
  });

  it('gives People, Deals and Tickets a built-in Users entityRelation field with its read keys', async () => {
    for (const name of ['people', 'deals', 'tickets']) {
      const detail = ok(await api.get(`/objects/${name}`));
      const users = detail.fields.find((f: any) => f.name === 'Users');
      expect(users, name).to.not.equal(undefined);
      expect(users.type).to.equal('entityRelation');
      expect(users.isSystem).to.equal(true);
      expect(users.entity_model).to.equal('User');
      expect(users.display_field).to.be.a('string').and.not.equal('');
      expect(users.relation_mode).to.be.oneOf(['single', 'multi']);
      expect(users.metadata).to.deep.equal({ entityModel: users.entity_model, displayField: users.display_field, mode: users.relation_mode });
    }
  });

  it('refuses a custom Object without columns and creates nothing', async () => {
    expectIssue(await api.post('/objects', { name: 'Vendors' }), 'columns', 'required');
    expectIssue(await api.post('/objects', { name: 'Vendors', columns: [] }), 'columns');
    expectError(await api.get('/objects/vendors'), 404, 'not_found');
  });

  it('creates a custom Object with columns; its detail has fields, views and one default record type', async () => {
    const created = ok(
      await api.post('/objects', {
        name: 'Projects',
        emoji: '📁',
        columns: [{ name: 'Title', type: 'string' }, { name: 'Budget', type: 'number', metadata: { format: 'currency', currency: 'EUR' } }],
      }),
      201,
    );
    expect(created).to.deep.include({ name: 'projects', displayName: 'Projects', emoji: '📁', kind: 'object', isSystem: false });
    const detail = ok(await api.get('/objects/projects'));
    expect(detail.id).to.equal(created.id);
    expect(detail.fields.map((f: any) => [f.name, f.type])).to.deep.equal([['Title', 'string'], ['Budget', 'number']]);
    expect(detail.views).to.deep.equal([]);
    expect(detail.recordTypes).to.have.length(1);
    expect(detail.recordTypes[0]).to.deep.include({ name: 'Default', isDefault: true });
    expect(detail.recordTypes[0].fieldIds).to.have.members(detail.fields.map((f: any) => f.id));
    const list = ok(await api.get('/objects')).agentry;
    expect(list.map((o: any) => o.name)).to.include('projects');
  });

  it('reports a bad column under columns[i] and creates nothing', async () => {
    const res = await api.post('/objects', { name: 'Broken', columns: [{ name: 'A', type: 'string' }, { name: 'B', type: 'date', metadata: { timezone: 'Mars/Base' } }] });
    expectIssue(res, 'columns[1].metadata.timezone', 'invalid');
    expectError(await api.get('/objects/broken'), 404, 'not_found');
  });

  it('changes display name, emoji, color and description, and nothing else', async () => {
    ok(await api.post('/objects', { name: 'Assets', columns: [{ name: 'Label', type: 'string' }] }), 201);
    const patched = ok(await api.patch('/objects/assets', { displayName: 'Company assets', emoji: '🖥️', color: 'teal', description: 'Laptops and phones' }));
    expect(patched).to.deep.include({ name: 'assets', displayName: 'Company assets', emoji: '🖥️', color: 'teal', description: 'Laptops and phones' });
    const detail = ok(await api.get('/objects/assets'));
    expect(detail).to.deep.include({ displayName: 'Company assets', emoji: '🖥️', color: 'teal', description: 'Laptops and phones' });
    ok(await api.patch('/objects/assets', { description: null }));
    expect(ok(await api.get('/objects/assets')).description).to.equal(null);

    expectIssue(await api.patch('/objects/assets', { name: 'renamed' }), 'body.name', 'unknown_field');
    expectIssue(await api.patch('/objects/assets', { displayName: '   ' }), 'displayName');
    expect(ok(await api.get('/objects/assets')).displayName).to.equal('Company assets');
    ok(await api.patch('/objects/people', { emoji: '🧑' }));
    expect(ok(await api.get('/objects/people')).emoji).to.equal('🧑');
  });

  it('refuses to delete a standard Object and deletes a custom one', async () => {
    for (const name of STANDARD) {
      expectError(await api.del(`/objects/${name}`), 400, 'bad_request');
      ok(await api.get(`/objects/${name}`));
    }
    ok(await api.post('/objects', { name: 'Temp', columns: [{ name: 'X', type: 'string' }] }), 201);
    expect((await api.del('/objects/temp')).status).to.equal(204);
    expectError(await api.get('/objects/temp'), 404, 'not_found');
    expectError(await api.del('/objects/temp'), 404, 'not_found');
    expect(ok(await api.get('/objects')).agentry.map((o: any) => o.name)).to.not.include('temp');
  });

  it('refuses to delete an Object another relation points at (409) until that field is gone', async () => {
    const target = ok(await api.post('/objects', { name: 'Suppliers', columns: [{ name: 'Name', type: 'string' }] }), 201);
    ok(await api.post('/tables', { name: 'Orders' }), 201);
    const link = ok(
      await api.post('/tables/orders/fields', { name: 'Supplier', type: 'relation', metadata: { mode: 'single', relatedTableId: target.id, displayColumn: target.fields[0].id } }),
      201,
    );
    expectError(await api.del('/objects/suppliers'), 409, 'conflict');
    ok(await api.get('/objects/suppliers'));
    expect((await api.del(`/tables/orders/fields/${link.id}`)).status).to.equal(204);
    expect((await api.del('/objects/suppliers')).status).to.equal(204);
  });

  it('answers the schema: fields, types and formats only', async () => {
    const schema = ok(await api.get('/objects/people/schema'));
    expect(schema).to.include({ name: 'people', kind: 'object' });
    expect(schema).to.not.have.any.keys('views', 'recordTypes');
    const email = schema.fields.find((f: any) => f.name === 'Email');
    expect(email).to.include({ type: 'string', format: 'email', required: false, unique: false, readOnly: false });
    const company = schema.fields.find((f: any) => f.name === 'Company');
    expect(company).to.include({ type: 'relation', mode: 'single' });
    expect(company.relatedTableId).to.be.a('number');
    expectError(await api.get('/objects/nothing_here/schema'), 404, 'not_found');
  });

  it('lets a GENERAL key read but not write (403 forbidden, nothing changed)', async () => {
    ok(await general.get('/objects'));
    ok(await general.get('/objects/people'));
    ok(await general.get('/objects/people/schema'));
    ok(await general.get('/tables'));
    expectError(await general.post('/tables', { name: 'ByMachine' }), 403, 'forbidden');
    expectError(await general.post('/objects', { name: 'ByMachine', columns: [{ name: 'A', type: 'string' }] }), 403, 'forbidden');
    expectError(await general.patch('/objects/people', { displayName: 'Humans' }), 403, 'forbidden');
    expectError(await general.del('/objects/assets'), 403, 'forbidden');
    expectError(await general.post('/objects/people/fields', { name: 'Nick', type: 'string' }), 403, 'forbidden');
    expectError(await api.get('/tables/bymachine'), 404, 'not_found');
    expect(ok(await api.get('/objects/people')).displayName).to.equal('People');
    ok(await api.get('/objects/assets'));
  });

  it('answers 401 without a key', async () => {
    const res = await call('GET', '/objects');
    expect(res.status).to.equal(401);
    expect(res.body.message).to.be.a('string');
  });

  it('keeps another account\'s Objects and Tables out of reach (404)', async () => {
    const other = client((await account()).key);
    const theirs = ok(await other.post('/tables', { name: 'Secret', columns: [{ name: 'Code', type: 'string' }] }), 201);
    const theirPeople = ok(await other.get('/objects/people'));
    expectError(await api.get('/tables/secret'), 404, 'not_found');
    expectError(await api.get(`/tables/${theirs.id}`), 404, 'not_found');
    expectError(await api.get(`/objects/${theirPeople.id}`), 404, 'not_found');
    expectError(await api.patch(`/tables/${theirs.id}`, { displayName: 'Mine' }), 404, 'not_found');
    expectError(await api.del(`/tables/${theirs.id}`), 404, 'not_found');
    expectError(await api.get(`/tables/${theirs.id}/fields`), 404, 'not_found');
    expectError(await api.post(`/tables/${theirs.id}/fields`, { name: 'X', type: 'string' }), 404, 'not_found');
    expect(ok(await api.get('/tables')).agentry.map((t: any) => t.id)).to.not.include(theirs.id);
    const still = ok(await other.get('/tables/secret'));
    expect(still.displayName).to.equal('Secret');
    expect(still.fields.map((f: any) => f.name)).to.deep.equal(['Code']);
  });

  it('treats SQL-looking names as data', async () => {
    const evil = 'x"; drop table users; --';
    const table = ok(await api.post('/tables', { name: evil, columns: [{ name: "a'); delete from data_fields; --", type: 'string' }] }), 201);
    expect(table.name).to.match(/^[a-z0-9_]+$/);
    expect(table.name).to.equal('x_drop_table_users');
    expect(table.displayName).to.equal(evil);
    const row = ok(await api.post(`/tables/${table.name}/rows`, { "a'); delete from data_fields; --": 'Robert"); DROP TABLE students;--' }), 201);
    expect(ok(await api.get(`/tables/${table.id}/rows/${row.id}`)).data).to.deep.equal({ "a'); delete from data_fields; --": 'Robert"); DROP TABLE students;--' });
    const me = ok(await api.get('/me'));
    expect(me.user).to.not.equal(null);
    ok(await api.get('/objects/people'));
    expect(ok(await api.get(`/tables/${table.name}`)).fields).to.have.length(1);
  });

  it('refuses names without letters or starting with a digit', async () => {
    expectIssue(await api.post('/tables', { name: '!!!' }), 'name', 'invalid');
    expectIssue(await api.post('/tables', { name: '2024 budget' }), 'name', 'invalid');
    expectIssue(await api.post('/tables', { name: '' }), 'body.name');
  });
});

describe('Tables', () => {
  let api: Client;

  before(async () => {
    api = client((await account()).key);
  });

  it('creates a Table without columns: no fields, no record types', async () => {
    const created = await createTable(api, 'Inbox');
    expect(created).to.deep.include({ name: 'inbox', kind: 'table', isSystem: false, fields: [], views: [] });
    expect(created).to.not.have.property('recordTypes');
    expect(ok(await api.get('/tables')).agentry.map((t: any) => t.name)).to.deep.equal(['inbox']);
    expect(ok(await api.get('/objects')).agentry.map((o: any) => o.name)).to.not.include('inbox');
  });

  it('refuses a duplicate name (409), also after slugging, and keeps the first', async () => {
    const first = await createTable(api, 'Leads', [{ name: 'Email', type: 'string', metadata: { format: 'email' } }]);
    expectError(await api.post('/tables', { name: 'Leads' }), 409, 'conflict');
    expectError(await api.post('/tables', { name: '  LEADS ' }), 409, 'conflict');
    const list = ok(await api.get('/tables')).agentry.filter((t: any) => t.name === 'leads');
    expect(list).to.have.length(1);
    expect(list[0].id).to.equal(first.id);
    expect(ok(await api.get('/tables/leads')).fields.map((f: any) => f.name)).to.deep.equal(['Email']);
  });

  it('creates one Table when the same name is posted concurrently; the others get 409', async () => {
    const results = await Promise.all([1, 2, 3, 4].map(() => api.post('/tables', { name: 'Race' })));
    expect(results.map((r) => r.status).sort(), results.map((r) => r.text).join('\n')).to.deep.equal([201, 409, 409, 409]);
    expect(ok(await api.get('/tables')).agentry.filter((t: any) => t.name === 'race')).to.have.length(1);
  });

  it('finds a Table by name (case-insensitive) and by numeric id; an Object path does not find it', async () => {
    const t = await createTable(api, 'Price list', [{ name: 'Item', type: 'string' }]);
    expect(t.name).to.equal('price_list');
    for (const ref of ['price_list', 'PRICE_LIST', String(t.id)]) {
      const got = ok(await api.get(`/tables/${ref}`));
      expect(got.id).to.equal(t.id);
      expect(got.fields.map((f: any) => f.name)).to.deep.equal(['Item']);
    }
    expect(ok(await api.get(`/tables/${t.id}/schema`))).to.include({ name: 'price_list', kind: 'table' });
    expectError(await api.get(`/objects/${t.id}`), 404, 'not_found');
    expectError(await api.get('/objects/price_list'), 404, 'not_found');
    expectError(await api.get('/tables/people'), 404, 'not_found');
  });

  it('patches and deletes a Table', async () => {
    await createTable(api, 'Scratch');
    const patched = ok(await api.patch('/tables/scratch', { displayName: 'Scratch pad', color: 'red' }));
    expect(patched).to.deep.include({ name: 'scratch', displayName: 'Scratch pad', color: 'red' });
    expect((await api.del('/tables/scratch')).status).to.equal(204);
    expectError(await api.get('/tables/scratch'), 404, 'not_found');
  });

  it('paginates the list with limit and nextCursor', async () => {
    const b = client((await account()).key);
    for (const name of ['One', 'Two', 'Three']) await createTable(b, name);
    const first = ok(await b.get('/tables?limit=2'));
    expect(first.agentry.map((t: any) => t.name)).to.deep.equal(['one', 'two']);
    expect(first.nextCursor).to.be.a('string');
    const second = ok(await b.get(`/tables?limit=2&cursor=${first.nextCursor}`));
    expect(second.agentry.map((t: any) => t.name)).to.deep.equal(['three']);
    expect(second.nextCursor).to.equal(null);
    expectIssue(await b.get('/tables?limit=0'), /^query\.limit/);
    expectIssue(await b.get('/tables?cursor=nonsense'), 'query.cursor');
  });

  it('refuses unknown keys in the body', async () => {
    expectIssue(await api.post('/tables', { name: 'Strict', owner: 'me' }), 'body.owner', 'unknown_field');
    expectError(await api.get('/tables/strict'), 404, 'not_found');
  });
});
