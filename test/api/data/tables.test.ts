import { expect } from 'chai';
import { call } from '../../setup/http.js';
import { account, client, createTable, expectError, expectIssue, ok, type Client } from './tables.helpers.js';

/** Tables, and the rules every Object and Table endpoint shares: key scope, accounts, names. */
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
    expectIssue(await api.post('/tables', { name: 'Strict', owner: 'me' }), 'owner', 'unknown_field');
    expectError(await api.get('/tables/strict'), 404, 'not_found');
  });
});

describe('Objects and Tables: keys, accounts and names', () => {
  let api: Client;
  let general: Client;

  before(async () => {
    const a = await account();
    api = client(a.key);
    general = client(a.general);
    ok(await api.post('/objects', { name: 'Assets', columns: [{ name: 'Label', type: 'string' }] }), 201);
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

  it("keeps another account's Objects and Tables out of reach (404)", async () => {
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
    expect(ok(await api.get(`/tables/${table.id}/rows/${row.id}`)).data).to.deep.equal({
      "a'); delete from data_fields; --": 'Robert"); DROP TABLE students;--',
    });
    const me = ok(await api.get('/me'));
    expect(me.user).to.not.equal(null);
    ok(await api.get('/objects/people'));
    expect(ok(await api.get(`/tables/${table.name}`)).fields).to.have.length(1);
  });

  it('handles question marks and backslashes in names and values (no binding placeholders)', async () => {
    const t = ok(
      await api.post('/tables', {
        name: 'Why? Because\\',
        columns: [
          { name: 'Why?', type: 'string' },
          { name: '??', type: 'select' },
        ],
      }),
      201,
    );
    const select = t.fields.find((f: any) => f.name === '??');
    ok(await api.post(`/tables/${t.id}/fields/${select.id}/tags`, { name: 'Maybe?' }), 201);
    const row = ok(await api.post(`/tables/${t.id}/rows`, { 'Why?': '? and ?? and \\?', '??': 'Maybe?' }), 201);
    expect(row.data).to.deep.equal({ 'Why?': '? and ?? and \\?', '??': 'Maybe?' });
    const why = t.fields.find((f: any) => f.name === 'Why?');
    ok(await api.patch(`/tables/${t.id}/fields/${why.id}`, { name: 'Why??', defaultValue: '?' }));
    expect(ok(await api.post(`/tables/${t.id}/rows`, {}), 201).data['Why??']).to.equal('?');
  });

  it('refuses names without letters or starting with a digit', async () => {
    expectIssue(await api.post('/tables', { name: '!!!' }), 'name', 'invalid');
    expectIssue(await api.post('/tables', { name: '2024 budget' }), 'name', 'invalid');
    expectIssue(await api.post('/tables', { name: '' }), 'name');
  });
});
