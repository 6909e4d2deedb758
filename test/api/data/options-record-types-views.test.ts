import { expect } from 'chai';
import {
  account,
  addField,
  client,
  createTable,
  expectError,
  expectIssue,
  fieldNamed,
  fieldsOf,
  ok,
  physicalColumns,
  rowsOf,
  type Client,
} from './tables.helpers.js';

/** Options (tags) of select fields and record types of Objects. Views are in views.test.ts. */
describe('Options (tags)', () => {
  let api: Client;
  let general: Client;
  let stage: any;
  const D = '/objects/deals';

  before(async () => {
    const a = await account();
    api = client(a.key);
    general = client(a.general);
    stage = await fieldNamed(api, D, 'Stage');
  });

  const names = async (path: string) => ok(await api.get(path)).agentry.map((o: any) => o.name);

  it('lists the options of an Object select field through /options, any key', async () => {
    const list = ok(await general.get(`${D}/fields/${stage.id}/options`));
    expect(list.agentry.map((o: any) => o.name)).to.deep.equal(['Lead', 'Qualified', 'Proposal', 'Won', 'Lost']);
    expect(list.agentry[0]).to.include({ fieldId: stage.id, order: 0 });
    expect(list.agentry.map((o: any) => o.order)).to.deep.equal([0, 1, 2, 3, 4]);
    expectError(await api.get(`${D}/fields/${stage.id}/tags`), 404, 'not_found');
  });

  it('creates an option (name, color) at the end; duplicates are a 409; GENERAL keys get 403', async () => {
    const created = ok(await api.post(`${D}/fields/${stage.id}/options`, { name: 'Negotiation', color: 'orange' }), 201);
    expect(created).to.include({ name: 'Negotiation', color: 'orange', order: 5, fieldId: stage.id });
    expectError(await api.post(`${D}/fields/${stage.id}/options`, { name: 'negotiation' }), 409, 'conflict');
    expectError(await general.post(`${D}/fields/${stage.id}/options`, { name: 'Machine' }), 403, 'forbidden');
    expectIssue(await api.post(`${D}/fields/${stage.id}/options`, { name: 'X', rank: 1 }), 'rank', 'unknown_field');
    expectIssue(await api.post(`${D}/fields/${stage.id}/options`, { name: '  ' }), 'name');
    expect(await names(`${D}/fields/${stage.id}/options`)).to.deep.equal(['Lead', 'Qualified', 'Proposal', 'Won', 'Lost', 'Negotiation']);
  });

  it('refuses options on a field that is not a select (400)', async () => {
    const name = await fieldNamed(api, D, 'Name');
    expectError(await api.post(`${D}/fields/${name.id}/options`, { name: 'Nope' }), 400, 'bad_request');
    expectError(await api.get(`${D}/fields/${name.id}/options`), 400, 'bad_request');
    expectError(await api.post(`${D}/fields/999999/options`, { name: 'Nope' }), 404, 'not_found');
  });

  it('patches name, color and order; rows keep the option across a rename', async () => {
    const [, qualified] = ok(await api.get(`${D}/fields/${stage.id}/options`)).agentry;
    const row = ok(await api.post(`${D}/rows`, { Name: 'Big deal', Stage: 'Qualified' }), 201);
    const renamed = ok(await api.patch(`${D}/options/${qualified.id}`, { name: 'Sales qualified', color: 'purple' }));
    expect(renamed).to.include({ id: qualified.id, name: 'Sales qualified', color: 'purple' });
    expect(ok(await api.get(`${D}/rows/${row.id}`)).data.Stage).to.equal('Sales qualified');
    ok(await api.patch(`${D}/options/${qualified.id}`, { order: 0 }));
    const after = ok(await api.get(`${D}/fields/${stage.id}/options`)).agentry;
    expect(after.map((o: any) => o.name).slice(0, 3)).to.deep.equal(['Sales qualified', 'Lead', 'Proposal']);
    expect(after.map((o: any) => o.order)).to.deep.equal(after.map((_: unknown, i: number) => i));
    expectError(await api.patch(`${D}/options/${qualified.id}`, { name: 'lead' }), 409, 'conflict');
    expect((await names(`${D}/fields/${stage.id}/options`))[0]).to.equal('Sales qualified');
  });

  it('deletes an option and removes it from the records that held it', async () => {
    const lost = ok(await api.get(`${D}/fields/${stage.id}/options`)).agentry.find((o: any) => o.name === 'Lost');
    const holder = ok(await api.post(`${D}/rows`, { Name: 'Gone', Stage: 'Lost' }), 201);
    const other = ok(await api.post(`${D}/rows`, { Name: 'Kept', Stage: 'Won' }), 201);
    expect((await api.del(`${D}/options/${lost.id}`)).status).to.equal(204);
    expect(await names(`${D}/fields/${stage.id}/options`)).to.not.include('Lost');
    expect(ok(await api.get(`${D}/rows/${holder.id}`)).data.Stage).to.equal(null);
    expect(ok(await api.get(`${D}/rows/${other.id}`)).data.Stage).to.equal('Won');
    expectIssue(await api.post(`${D}/rows`, { Name: 'Late', Stage: 'Lost' }), /Stage$/);
    expectError(await api.del(`${D}/options/${lost.id}`), 404, 'not_found');
  });

  it('serves Table options under /tags and removes a deleted tag from multi-select rows', async () => {
    const T = '/tables/articles';
    await createTable(api, 'Articles', [{ name: 'Title', type: 'string' }]);
    const labels = await addField(api, T, { name: 'Labels', type: 'select', metadata: { mode: 'multiSelect' } });
    const [news, tech] = [
      ok(await api.post(`${T}/fields/${labels.id}/tags`, { name: 'News', color: 'blue' }), 201),
      ok(await api.post(`${T}/fields/${labels.id}/tags`, { name: 'Tech' }), 201),
    ];
    expect(tech.color).to.equal(null);
    expect(await names(`${T}/fields/${labels.id}/tags`)).to.deep.equal(['News', 'Tech']);
    expectError(await api.get(`${T}/fields/${labels.id}/options`), 404, 'not_found');
    const row = ok(await api.post(`${T}/rows`, { Title: 'A', Labels: ['News', 'Tech'] }), 201);
    expect(ok(await api.patch(`${T}/tags/${tech.id}`, { color: 'green' })).color).to.equal('green');
    expect((await api.del(`${T}/tags/${news.id}`)).status).to.equal(204);
    expect(ok(await api.get(`${T}/rows/${row.id}`)).data.Labels).to.deep.equal(['Tech']);
    expectError(await api.patch(`${T}/options/${tech.id}`, { name: 'x' }), 404, 'not_found');
  });

  it('answers 404 for an option of another table or account, and leaves it untouched', async () => {
    const won = ok(await api.get(`${D}/fields/${stage.id}/options`)).agentry.find((o: any) => o.name === 'Won');
    expectError(await api.patch(`/objects/tickets/options/${won.id}`, { name: 'Hijacked' }), 404, 'not_found');
    expectError(await api.del(`/objects/tickets/options/${won.id}`), 404, 'not_found');
    const stranger = client((await account()).key);
    expectError(await stranger.patch(`${D}/options/${won.id}`, { name: 'Hijacked' }), 404, 'not_found');
    expectError(await stranger.del(`${D}/options/${won.id}`), 404, 'not_found');
    expectError(await stranger.get(`${D}/fields/${stage.id}/options`), 404, 'not_found');
    expect(await names(`${D}/fields/${stage.id}/options`)).to.include('Won');
  });
});

describe('Record types', () => {
  let api: Client;
  let general: Client;
  const O = '/objects/accounts';
  let base: any;

  before(async () => {
    const a = await account();
    api = client(a.key);
    general = client(a.general);
    ok(await api.post('/objects', { name: 'Accounts', columns: [{ name: 'Name', type: 'string' }] }), 201);
    [base] = ok(await api.get(`${O}/record-types`)).agentry;
  });

  it('lists the default record type and creates others; duplicate names are a 409', async () => {
    expect(base).to.include({ name: 'Default', isDefault: true, order: 0 });
    expect(ok(await general.get(`${O}/record-types`)).agentry).to.have.length(1);
    const customer = ok(await api.post(`${O}/record-types`, { name: 'Customer', description: 'Buys from us' }), 201);
    expect(customer).to.include({ name: 'Customer', description: 'Buys from us', isDefault: false, order: 1 });
    expect(customer.fieldIds).to.have.length(1);
    expectError(await api.post(`${O}/record-types`, { name: 'customer' }), 409, 'conflict');
    expectError(await general.post(`${O}/record-types`, { name: 'Machine' }), 403, 'forbidden');
    expectIssue(await api.post(`${O}/record-types`, {}), 'name', 'required');
    expect(ok(await api.get(`${O}/record-types`)).agentry.map((rt: any) => rt.name)).to.deep.equal(['Default', 'Customer']);
    expectError(await api.get('/tables/accounts/record-types'), 404, 'not_found');
  });

  it('refuses to rename, delete or un-default the default record type (400) until another is promoted', async () => {
    expectError(await api.patch(`${O}/record-types/${base.id}`, { name: 'Main' }), 400, 'bad_request');
    expectError(await api.patch(`${O}/record-types/${base.id}`, { isDefault: false }), 400, 'bad_request');
    expectError(await api.del(`${O}/record-types/${base.id}`), 400, 'bad_request');
    ok(await api.patch(`${O}/record-types/${base.id}`, { description: 'Everything else' }));
    let list = ok(await api.get(`${O}/record-types`)).agentry;
    expect(list.find((rt: any) => rt.id === base.id)).to.include({ name: 'Default', isDefault: true, description: 'Everything else' });

    const customer = list.find((rt: any) => rt.name === 'Customer');
    expect(ok(await api.patch(`${O}/record-types/${customer.id}`, { isDefault: true })).isDefault).to.equal(true);
    list = ok(await api.get(`${O}/record-types`)).agentry;
    expect(list.filter((rt: any) => rt.isDefault).map((rt: any) => rt.id)).to.deep.equal([customer.id]);
    expect(ok(await api.patch(`${O}/record-types/${base.id}`, { name: 'Other' })).name).to.equal('Other');
    expect((await api.del(`${O}/record-types/${base.id}`)).status).to.equal(204);
    expect(ok(await api.get(O)).recordTypes.map((rt: any) => rt.name)).to.deep.equal(['Customer']);
  });

  it('promotes a new record type created with isDefault: true', async () => {
    const vip = ok(await api.post(`${O}/record-types`, { name: 'VIP', isDefault: true }), 201);
    const list = ok(await api.get(`${O}/record-types`)).agentry;
    expect(list.filter((rt: any) => rt.isDefault).map((rt: any) => rt.id)).to.deep.equal([vip.id]);
    const row = ok(await api.post(`${O}/rows`, { Name: 'Acme' }), 201);
    expect(row.recordTypeId).to.equal(vip.id);
  });

  it('refuses to delete a record type a record uses (409), and allows it once the record moves', async () => {
    const prospect = ok(await api.post(`${O}/record-types`, { name: 'Prospect' }), 201);
    const row = ok(await api.post(`${O}/rows`, { Name: 'Initech', recordTypeId: prospect.id }), 201);
    expect(row.recordTypeId).to.equal(prospect.id);
    expectError(await api.del(`${O}/record-types/${prospect.id}`), 409, 'conflict');
    expect(ok(await api.get(`${O}/record-types`)).agentry.map((rt: any) => rt.id)).to.include(prospect.id);
    const vip = ok(await api.get(`${O}/record-types`)).agentry.find((rt: any) => rt.name === 'VIP');
    ok(await api.patch(`${O}/rows/${row.id}`, { recordTypeId: vip.id }));
    expect((await api.del(`${O}/record-types/${prospect.id}`)).status).to.equal(204);
    expect((await rowsOf(api, O)).every((r) => r.recordTypeId !== prospect.id)).to.equal(true);
  });

  it('deletes the fields scoped to a deleted record type together with their storage', async () => {
    const detail = ok(await api.get(O));
    const partner = ok(await api.post(`${O}/record-types`, { name: 'Partner' }), 201);
    const scoped = await addField(api, O, { name: 'Partner code', type: 'string', record_type_id: partner.id });
    const tier = await addField(api, O, { name: 'Partner tier', type: 'select', record_type_id: partner.id });
    ok(await api.post(`${O}/fields/${tier.id}/options`, { name: 'Gold' }), 201);
    const row = ok(await api.post(`${O}/rows`, { Name: 'Umbrella', 'Partner code': 'zebra' }), 201);
    expect(await physicalColumns(detail.id)).to.include.members([`f_${scoped.id}`, `f_${tier.id}`]);
    expect((await api.del(`${O}/record-types/${partner.id}`)).status).to.equal(204);
    expect((await fieldsOf(api, O)).map((f) => f.id)).to.not.include.members([scoped.id, tier.id]);
    expect(await physicalColumns(detail.id)).to.not.include.members([`f_${scoped.id}`, `f_${tier.id}`]);
    expect(ok(await api.get(`${O}/rows/${row.id}`)).data).to.not.have.property('Partner code');
    expect(ok(await api.post(`${O}/rows/count`, { search: 'zebra' }))).to.deep.equal({ count: 0 });
    ok(await api.post(`${O}/rows`, { Name: 'Still works' }), 201);
  });

  it('renames and reorders a record type; a taken name is a 409', async () => {
    const list = ok(await api.get(`${O}/record-types`)).agentry;
    const customer = list.find((rt: any) => rt.name === 'Customer');
    expectError(await api.patch(`${O}/record-types/${customer.id}`, { name: 'vip' }), 409, 'conflict');
    expect(ok(await api.patch(`${O}/record-types/${customer.id}`, { name: 'Client', order: 5 })).name).to.equal('Client');
    const after = ok(await api.get(`${O}/record-types`)).agentry;
    expect(after[after.length - 1].name).to.equal('Client');
    expect(after.map((rt: any) => rt.order)).to.deep.equal(after.map((_: unknown, i: number) => i));
  });

  it('answers 404 for a record type of another Object or account', async () => {
    const [dealsDefault] = ok(await api.get('/objects/deals/record-types')).agentry;
    expectError(await api.patch(`${O}/record-types/${dealsDefault.id}`, { description: 'x' }), 404, 'not_found');
    expectError(await api.del(`${O}/record-types/${dealsDefault.id}`), 404, 'not_found');
    const stranger = client((await account()).key);
    expectError(await stranger.patch(`/objects/deals/record-types/${dealsDefault.id}`, { description: 'x' }), 404, 'not_found');
    expectError(await stranger.get(`${O}/record-types`), 404, 'not_found');
    expect(ok(await api.get('/objects/deals/record-types')).agentry[0].description).to.equal(null);
  });
});
