import { expect } from 'chai';
import { account, client, expectError, expectIssue, ok, type Client } from './tables.helpers.js';

const STANDARD = ['companies', 'people', 'deals', 'tickets'];

/** Objects: the standard ones and custom ones. Tables and access rules are in tables.test.ts. */
describe('Objects', () => {
  let api: Client;

  before(async () => {
    api = client((await account()).key);
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
    expect(people.fields.find((f: any) => f.name === 'Email')).to.deep.include({
      type: 'string',
      metadata: { format: 'email', extendedField: false },
    });
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
        columns: [
          { name: 'Title', type: 'string' },
          { name: 'Budget', type: 'number', metadata: { format: 'currency', currency: 'EUR' } },
        ],
      }),
      201,
    );
    expect(created).to.deep.include({ name: 'projects', displayName: 'Projects', emoji: '📁', kind: 'object', isSystem: false });
    const detail = ok(await api.get('/objects/projects'));
    expect(detail.id).to.equal(created.id);
    expect(detail.fields.map((f: any) => [f.name, f.type])).to.deep.equal([
      ['Title', 'string'],
      ['Budget', 'number'],
    ]);
    expect(detail.views).to.deep.equal([]);
    expect(detail.recordTypes).to.have.length(1);
    expect(detail.recordTypes[0]).to.deep.include({ name: 'Default', isDefault: true });
    expect(detail.recordTypes[0].fieldIds).to.have.members(detail.fields.map((f: any) => f.id));
    const list = ok(await api.get('/objects')).agentry;
    expect(list.map((o: any) => o.name)).to.include('projects');
  });

  it('reports a bad column under columns[i] and creates nothing', async () => {
    const res = await api.post('/objects', {
      name: 'Broken',
      columns: [
        { name: 'A', type: 'string' },
        { name: 'B', type: 'date', metadata: { timezone: 'Mars/Base' } },
      ],
    });
    expectIssue(res, 'columns[1].metadata.timezone', 'invalid');
    expectError(await api.get('/objects/broken'), 404, 'not_found');
  });

  it('changes display name, emoji, color and description, and nothing else', async () => {
    ok(await api.post('/objects', { name: 'Assets', columns: [{ name: 'Label', type: 'string' }] }), 201);
    const patched = ok(
      await api.patch('/objects/assets', { displayName: 'Company assets', emoji: '🖥️', color: 'teal', description: 'Laptops and phones' }),
    );
    expect(patched).to.deep.include({ name: 'assets', displayName: 'Company assets', emoji: '🖥️', color: 'teal', description: 'Laptops and phones' });
    const detail = ok(await api.get('/objects/assets'));
    expect(detail).to.deep.include({ displayName: 'Company assets', emoji: '🖥️', color: 'teal', description: 'Laptops and phones' });
    ok(await api.patch('/objects/assets', { description: null }));
    expect(ok(await api.get('/objects/assets')).description).to.equal(null);

    expectIssue(await api.patch('/objects/assets', { name: 'renamed' }), 'name', 'unknown_field');
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
      await api.post('/tables/orders/fields', {
        name: 'Supplier',
        type: 'relation',
        metadata: { mode: 'single', relatedTableId: target.id, displayColumn: target.fields[0].id },
      }),
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

  it('deletes a custom Object that relates to itself', async () => {
    const o = ok(await api.post('/objects', { name: 'Employees', columns: [{ name: 'Name', type: 'string' }] }), 201);
    for (const mode of ['single', 'multi']) {
      ok(
        await api.post('/objects/employees/fields', {
          name: `Manager ${mode}`,
          type: 'relation',
          metadata: { mode, relatedTableId: o.id, displayColumn: o.fields[0].id },
        }),
        201,
      );
    }
    ok(await api.post('/objects/employees/rows', { Name: 'Boss' }), 201);
    expect((await api.del('/objects/employees')).status).to.equal(204);
    expectError(await api.get(`/objects/${o.id}`), 404, 'not_found');
  });
});
