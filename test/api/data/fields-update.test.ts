import { expect } from 'chai';
import { account, addField, client, createTable, expectError, expectIssue, fieldNamed, fieldsOf, ok, rowsOf, type Client } from './helpers.js';

/** Field defaults, record-type scoping, updates (PATCH) and deletion. */
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

  it('refuses a default for relation, entityRelation, file and avatar fields, and an invalid default', async () => {
    const T = '/tables/refusals';
    const t = await createTable(api, 'Refusals', [{ name: 'Name', type: 'string' }]);
    const bodies: Record<string, unknown>[] = [
      { name: 'R', type: 'relation', metadata: { mode: 'single', relatedTableId: t.id, displayColumn: t.fields[0].id }, defaultValue: '0123456789abcdef01234567' },
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

describe('Fields: update and delete', () => {
  let api: Client;
  const T = '/tables/inventory';

  before(async () => {
    api = client((await account()).key);
    await createTable(api, 'Inventory', [{ name: 'Item', type: 'string' }, { name: 'Code', type: 'string' }, { name: 'Qty', type: 'string' }]);
    for (const [Item, Code, Qty] of [['bolt', 'B1', '10'], ['nut', 'B1', '2.5'], ['washer', 'W1', null]]) {
      ok(await api.post(`${T}/rows`, { Item, Code, Qty }), 201);
    }
  });

  it('renames a field; a name taken by another field is a 409', async () => {
    const item = await fieldNamed(api, T, 'Item');
    expect(ok(await api.patch(`${T}/fields/${item.id}`, { name: 'Article' })).name).to.equal('Article');
    expect((await rowsOf(api, T))[0].data.Article).to.equal('bolt');
    expectError(await api.patch(`${T}/fields/${item.id}`, { name: 'code' }), 409, 'conflict');
    expect((await fieldNamed(api, T, 'Article')).id).to.equal(item.id);
    expectIssue(await api.patch(`${T}/fields/${item.id}`, { label: 'x' }), 'body.label', 'unknown_field');
  });

  it('sets required and unique; unique over repeated values is a 409 and changes nothing', async () => {
    const code = await fieldNamed(api, T, 'Code');
    expectError(await api.patch(`${T}/fields/${code.id}`, { unique: true, required: true }), 409, 'conflict');
    expect(await fieldNamed(api, T, 'Code')).to.include({ unique: false, required: false });
    const article = await fieldNamed(api, T, 'Article');
    expect(ok(await api.patch(`${T}/fields/${article.id}`, { unique: true, required: true }))).to.include({ unique: true, required: true });
    expectError(await api.post(`${T}/rows`, { Article: 'bolt', Code: 'X' }), 409, 'conflict');
    expectIssue(await api.post(`${T}/rows`, { Code: 'X' }), /Article$/, 'required');
    expect(ok(await api.patch(`${T}/fields/${article.id}`, { unique: false, required: false }))).to.include({ unique: false, required: false });
    ok(await api.post(`${T}/rows`, { Article: 'bolt', Code: 'B2' }), 201);
  });

  it('converts string to number only when every value is numeric, and number back to string', async () => {
    const code = await fieldNamed(api, T, 'Code');
    const issue = expectIssue(await api.patch(`${T}/fields/${code.id}`, { type: 'number', metadata: { format: 'decimal' } }), 'type', 'invalid');
    expect(issue.message).to.match(/values/);
    expect((await fieldNamed(api, T, 'Code')).type).to.equal('string');
    expect((await rowsOf(api, T)).map((r) => r.data.Code)).to.include.members(['B1', 'W1']);

    const qty = await fieldNamed(api, T, 'Qty');
    const converted = ok(await api.patch(`${T}/fields/${qty.id}`, { type: 'number', metadata: { format: 'decimal' } }));
    expect(converted).to.deep.include({ type: 'number', metadata: { format: 'decimal' } });
    expect((await rowsOf(api, T)).slice(0, 3).map((r) => r.data.Qty)).to.deep.equal([10, 2.5, null]);
    const back = ok(await api.patch(`${T}/fields/${qty.id}`, { type: 'string' }));
    expect(back).to.deep.include({ type: 'string', metadata: { format: 'text', extendedField: false } });
    expect((await rowsOf(api, T)).slice(0, 3).map((r) => r.data.Qty)).to.deep.equal(['10', '2.5', null]);
  });

  it('refuses unsupported type changes and internal types, keeping the values', async () => {
    const code = await fieldNamed(api, T, 'Code');
    for (const type of ['boolean', 'select', 'file', 'formula', 'relation']) {
      expectIssue(await api.patch(`${T}/fields/${code.id}`, { type }), /^(type|metadata)/);
    }
    expectIssue(await api.patch(`${T}/fields/${code.id}`, { type: 'autoIncrement' }), 'type', 'invalid');
    expectIssue(await api.patch(`${T}/fields/${code.id}`, { metadata: { format: 'composedField' } }), 'metadata.format', 'invalid');
    expectIssue(await api.patch(`${T}/fields/${code.id}`, { metadata: { time_format: '12h' } }), 'metadata.time_format', 'unknown_field');
    expect(await fieldNamed(api, T, 'Code')).to.deep.include({ type: 'string', metadata: { format: 'text', extendedField: false } });
    expect((await rowsOf(api, T)).map((r) => r.data.Code)).to.include.members(['B1', 'W1']);
  });

  it('replaces the options of a select field with tags, clearing removed ones from rows', async () => {
    const color = await addField(api, T, { name: 'Color', type: 'select', metadata: { mode: 'multiSelect' } });
    for (const name of ['Red', 'Green', 'Blue']) ok(await api.post(`${T}/fields/${color.id}/tags`, { name }), 201);
    const [first] = await rowsOf(api, T);
    ok(await api.patch(`${T}/rows/${first.id}`, { Color: ['Red', 'Blue'] }));
    const red = (await fieldNamed(api, T, 'Color')).options.find((o: any) => o.name === 'Red');
    ok(await api.patch(`${T}/fields/${color.id}`, { defaultValue: ['Red', 'Green'] }));
    const patched = ok(await api.patch(`${T}/fields/${color.id}`, { tags: [{ name: 'Yellow', color: 'yellow' }, { id: red.id, name: 'Crimson' }] }));
    expect(patched.options.map((o: any) => o.name)).to.deep.equal(['Yellow', 'Crimson']);
    expect(patched.options[1].id).to.equal(red.id);
    expect(ok(await api.get(`${T}/rows/${first.id}`)).data.Color).to.deep.equal(['Crimson']);
    expect(patched.defaultValue).to.deep.equal(['Crimson']);
    expectIssue(await api.patch(`${T}/fields/${color.id}`, { tags: [{ name: 'A' }, { name: 'a' }] }), 'tags[1].name');
    expectIssue(await api.patch(`${T}/fields/${color.id}`, { tags: [{ id: 999_999, name: 'Ghost' }] }), 'tags[0].id', 'not_found');
    expect((await fieldNamed(api, T, 'Color')).options.map((o: any) => o.name)).to.deep.equal(['Yellow', 'Crimson']);
    const code = await fieldNamed(api, T, 'Code');
    expectError(await api.patch(`${T}/fields/${code.id}`, { tags: [{ name: 'A' }] }), 400, 'bad_request');
  });

  it('switches a select between single and multi, refusing to drop values', async () => {
    const size = await addField(api, T, { name: 'Size', type: 'select', metadata: { mode: 'singleSelect' } });
    for (const name of ['S', 'M', 'L']) ok(await api.post(`${T}/fields/${size.id}/tags`, { name }), 201);
    const [first, second] = await rowsOf(api, T);
    ok(await api.patch(`${T}/rows/${first.id}`, { Size: 'M' }));
    ok(await api.patch(`${T}/fields/${size.id}`, { metadata: { mode: 'multiSelect' } }));
    expect(ok(await api.get(`${T}/rows/${first.id}`)).data.Size).to.deep.equal(['M']);
    ok(await api.patch(`${T}/rows/${second.id}`, { Size: ['S', 'L'] }));
    expectError(await api.patch(`${T}/fields/${size.id}`, { metadata: { mode: 'singleSelect' } }), 400, 'bad_request');
    expect((await fieldNamed(api, T, 'Size')).metadata.mode).to.equal('multiSelect');
    expect(ok(await api.get(`${T}/rows/${second.id}`)).data.Size).to.deep.equal(['S', 'L']);
    ok(await api.patch(`${T}/rows/${second.id}`, { Size: ['L'] }));
    ok(await api.patch(`${T}/fields/${size.id}`, { metadata: { mode: 'singleSelect' } }));
    expect(ok(await api.get(`${T}/rows/${second.id}`)).data.Size).to.equal('L');
  });

  it('moves a field with order, shifting the others', async () => {
    const before = await fieldsOf(api, T);
    const last = before[before.length - 1];
    expect(ok(await api.patch(`${T}/fields/${last.id}`, { order: 0 })).order).to.equal(0);
    const after = await fieldsOf(api, T);
    expect(after.map((f) => f.id)).to.deep.equal([last.id, ...before.slice(0, -1).map((f) => f.id)]);
    expect(after.map((f) => f.order)).to.deep.equal(after.map((_, i) => i));
    expect(ok(await api.get(T)).fields.map((f: any) => f.id)).to.deep.equal(after.map((f) => f.id));
  });

  it('refuses to change the target or mode of a relation', async () => {
    const other = await createTable(api, 'Bins', [{ name: 'Bin', type: 'string' }]);
    const rel = await addField(api, T, { name: 'Bin', type: 'relation', metadata: { mode: 'single', relatedTableId: other.id, displayColumn: other.fields[0].id } });
    expectIssue(await api.patch(`${T}/fields/${rel.id}`, { metadata: { ...rel.metadata, mode: 'multi' } }), 'metadata.mode');
    expect((await fieldNamed(api, T, 'Bin')).metadata.mode).to.equal('single');
  });

  it('deletes a field and its values; built-in and foreign fields are refused', async () => {
    const code = await fieldNamed(api, T, 'Code');
    expect((await api.del(`${T}/fields/${code.id}`)).status).to.equal(204);
    expect((await fieldsOf(api, T)).map((f) => f.id)).to.not.include(code.id);
    for (const row of await rowsOf(api, T)) expect(row.data).to.not.have.property('Code');
    expectError(await api.del(`${T}/fields/${code.id}`), 404, 'not_found');

    const users = await fieldNamed(api, '/objects/people', 'Users');
    expectError(await api.del(`/objects/people/fields/${users.id}`), 400, 'bad_request');
    expectError(await api.patch(`/objects/people/fields/${users.id}`, { type: 'string' }), 400, 'bad_request');
    expect(await fieldNamed(api, '/objects/people', 'Users')).to.include({ type: 'entityRelation' });

    const foreign = await fieldNamed(api, '/objects/people', 'Email');
    expectError(await api.patch(`${T}/fields/${foreign.id}`, { name: 'Stolen' }), 404, 'not_found');
    expectError(await api.del(`${T}/fields/${foreign.id}`), 404, 'not_found');
    const stranger = await fieldsOf(client((await account()).key), '/objects/deals');
    expectError(await api.patch(`/objects/deals/fields/${stranger[0].id}`, { name: 'Stolen' }), 404, 'not_found');
    expect((await fieldNamed(api, '/objects/people', 'Email')).name).to.equal('Email');
  });

  it('refuses to delete a field another table displays through a relation (409)', async () => {
    const bins = await fieldNamed(api, '/tables/bins', 'Bin');
    expectError(await api.del(`/tables/bins/fields/${bins.id}`), 409, 'conflict');
    ok(await api.get(`/tables/bins/fields`));
    expect((await fieldsOf(api, '/tables/bins')).map((f) => f.id)).to.include(bins.id);
  });
});
