import { expect } from 'chai';
import { account, addField, client, createTable, expectError, expectIssue, fieldNamed, fieldsOf, ok, rowsOf, type Client } from './tables.helpers.js';

/** Field defaults (backfill, refusals, select defaults) and record-type scoping of Object fields. */
describe('Fields: defaults and record types', () => {
  let api: Client;

  before(async () => {
    api = client((await account()).key);
  });

  it('backfills existing rows with defaultValue and gives new rows the default', async () => {
    const T = '/tables/tasks';
    await createTable(api, 'Tasks', [{ name: 'Title', type: 'string' }]);
    ok(await api.post(`${T}/rows`, { Title: 'one' }), 201);
    ok(await api.post(`${T}/rows`, { Title: 'two' }), 201);
    const status = await addField(api, T, { name: 'Status', type: 'string', defaultValue: 'todo' });
    expect(status.defaultValue).to.equal('todo');
    await addField(api, T, { name: 'Points', type: 'number', metadata: { format: 'integer' }, defaultValue: 3 });
    await addField(api, T, { name: 'Done', type: 'boolean', defaultValue: false });
    await addField(api, T, { name: 'Due', type: 'dateOnly', defaultValue: '2030-01-31' });
    const before = Date.now();
    await addField(api, T, { name: 'Seen', type: 'date', defaultValue: 'NOW' });
    for (const row of await rowsOf(api, T)) {
      expect(row.data).to.deep.include({ Status: 'todo', Points: 3, Done: false, Due: '2030-01-31' });
      expect(Math.abs(Date.parse(row.data.Seen) - before)).to.be.lessThan(60_000);
    }
    const fresh = ok(await api.post(`${T}/rows`, { Title: 'three' }), 201);
    expect(fresh.data).to.deep.include({ Status: 'todo', Points: 3, Done: false, Due: '2030-01-31' });
    expect(Date.parse(fresh.data.Seen)).to.be.at.least(before - 1000);
    const explicit = ok(await api.post(`${T}/rows`, { Title: 'four', Status: 'doing' }), 201);
    expect(explicit.data.Status).to.equal('doing');
  });

  it('refuses a unique field whose default would repeat over existing rows, creating nothing', async () => {
    const T = '/tables/tasks';
    const before = await fieldsOf(api, T);
    expectError(await api.post(`${T}/fields`, { name: 'Ref', type: 'string', unique: true, defaultValue: 'same' }), 409, 'conflict');
    expect((await fieldsOf(api, T)).map((f) => f.id)).to.deep.equal(before.map((f) => f.id));
    ok(await api.post(`${T}/fields`, { name: 'Ref', type: 'string', unique: true }), 201);
  });

  it('refuses a default for relation, entityRelation, file and avatar fields, and an invalid default', async () => {
    const T = '/tables/refusals';
    const t = await createTable(api, 'Refusals', [{ name: 'Name', type: 'string' }]);
    const bodies: Record<string, unknown>[] = [
      {
        name: 'R',
        type: 'relation',
        metadata: { mode: 'single', relatedTableId: t.id, displayColumn: t.fields[0].id },
        defaultValue: '0123456789abcdef01234567',
      },
      { name: 'E', type: 'entityRelation', defaultValue: 1 },
      { name: 'F', type: 'file', defaultValue: ['x'] },
      { name: 'A', type: 'avatar', defaultValue: 'https://example.test/a.png' },
      { name: 'N', type: 'number', defaultValue: 'lots' },
      { name: 'M', type: 'string', metadata: { format: 'email' }, defaultValue: 'not an email' },
      { name: 'S', type: 'select', defaultValue: 'Missing option' },
    ];
    for (const body of bodies) expectIssue(await api.post(`${T}/fields`, body), 'defaultValue', 'invalid');
    expect((await fieldsOf(api, T)).map((f) => f.name)).to.deep.equal(['Name']);
  });

  it('takes a select default (the option name) once the option exists', async () => {
    const T = '/tables/tickets_board';
    await createTable(api, 'Tickets board');
    const stage = await addField(api, T, { name: 'Stage', type: 'select', metadata: { mode: 'singleSelect' } });
    ok(await api.post(`${T}/fields/${stage.id}/tags`, { name: 'Open', color: 'green' }), 201);
    expect(ok(await api.patch(`${T}/fields/${stage.id}`, { defaultValue: 'Open' })).defaultValue).to.equal('Open');
    expect(ok(await api.post(`${T}/rows`, {}), 201).data.Stage).to.equal('Open');
    expectIssue(await api.patch(`${T}/fields/${stage.id}`, { defaultValue: 'Closed' }), 'defaultValue');
    expect((await fieldNamed(api, T, 'Stage')).defaultValue).to.equal('Open');
    // The default follows a renamed option and goes away with a deleted one; records can still be created.
    const open = (await fieldNamed(api, T, 'Stage')).options[0];
    ok(await api.patch(`${T}/tags/${open.id}`, { name: 'Opened' }));
    expect((await fieldNamed(api, T, 'Stage')).defaultValue).to.equal('Opened');
    expect(ok(await api.post(`${T}/rows`, {}), 201).data.Stage).to.equal('Opened');
    expect((await api.del(`${T}/tags/${open.id}`)).status).to.equal(204);
    expect((await fieldNamed(api, T, 'Stage')).defaultValue).to.equal(null);
    expect(ok(await api.post(`${T}/rows`, {}), 201).data.Stage).to.equal(null);
  });

  it('adds a new Object field to every record type unless record_type_id scopes it', async () => {
    const O = '/objects/partners';
    const created = ok(await api.post('/objects', { name: 'Partners', columns: [{ name: 'Name', type: 'string' }] }), 201);
    const reseller = ok(await api.post(`${O}/record-types`, { name: 'Reseller' }), 201);
    const shared = await addField(api, O, { name: 'Website', type: 'string', metadata: { format: 'url' } });
    expect(shared.record_type_id).to.equal(null);
    const scoped = await addField(api, O, { name: 'Discount', type: 'number', metadata: { format: 'percent' }, record_type_id: reseller.id });
    expect(scoped.record_type_id).to.equal(reseller.id);
    const detail = ok(await api.get(O));
    const byName = Object.fromEntries(detail.recordTypes.map((rt: any) => [rt.name, rt.fieldIds]));
    expect(byName.Default).to.have.members([created.fields[0].id, shared.id]);
    expect(byName.Reseller).to.have.members([created.fields[0].id, shared.id, scoped.id]);
    const listed = ok(await api.get(`${O}/record-types`)).agentry.find((rt: any) => rt.id === reseller.id);
    expect(listed.fieldIds).to.include(scoped.id);

    expectIssue(await api.post(`${O}/fields`, { name: 'Tier', type: 'string', record_type_id: 999_999 }), 'record_type_id', 'not_found');
    const otherRt = ok(await api.get('/objects/deals')).recordTypes[0];
    expectIssue(await api.post(`${O}/fields`, { name: 'Tier', type: 'string', record_type_id: otherRt.id }), 'record_type_id', 'not_found');
    await createTable(api, 'Plain');
    expectIssue(await api.post('/tables/plain/fields', { name: 'Tier', type: 'string', record_type_id: reseller.id }), 'record_type_id');
    expect((await fieldsOf(api, O)).map((f) => f.name)).to.not.include('Tier');
  });
});
