import { expect } from 'chai';
import { account, addField, client, createTable, expectError, expectIssue, fieldNamed, fieldsOf, ok, rowsOf, type Client } from './tables.helpers.js';

/** Field updates (PATCH: name, required/unique, type, options, order) and deletion. */
describe('Fields: update and delete', () => {
  let api: Client;
  const T = '/tables/inventory';

  before(async () => {
    api = client((await account()).key);
    await createTable(api, 'Inventory', [
      { name: 'Item', type: 'string' },
      { name: 'Code', type: 'string' },
      { name: 'Qty', type: 'string' },
    ]);
    for (const [Item, Code, Qty] of [
      ['bolt', 'B1', '10'],
      ['nut', 'B1', '2.5'],
      ['washer', 'W1', null],
    ]) {
      ok(await api.post(`${T}/rows`, { Item, Code, Qty }), 201);
    }
  });

  it('renames a field; a name taken by another field is a 409', async () => {
    const item = await fieldNamed(api, T, 'Item');
    expect(ok(await api.patch(`${T}/fields/${item.id}`, { name: 'Article' })).name).to.equal('Article');
    expect((await rowsOf(api, T))[0].data.Article).to.equal('bolt');
    expectError(await api.patch(`${T}/fields/${item.id}`, { name: 'code' }), 409, 'conflict');
    expect((await fieldNamed(api, T, 'Article')).id).to.equal(item.id);
    expectIssue(await api.patch(`${T}/fields/${item.id}`, { label: 'x' }), 'label', 'unknown_field');
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

  it('keeps the default usable across type and metadata changes', async () => {
    const B = '/tables/defaults_kept';
    await createTable(api, 'Defaults kept');
    const level = await addField(api, B, { name: 'Level', type: 'number', defaultValue: 3 });
    expect(ok(await api.patch(`${B}/fields/${level.id}`, { type: 'string' })).defaultValue).to.equal('3');
    expect(ok(await api.post(`${B}/rows`, {}), 201).data.Level).to.equal('3');
    expect(ok(await api.patch(`${B}/fields/${level.id}`, { type: 'number', metadata: { format: 'integer' } })).defaultValue).to.equal(3);
    expect(ok(await api.post(`${B}/rows`, {}), 201).data.Level).to.equal(3);
    const mail = await addField(api, B, { name: 'Mail', type: 'string', defaultValue: 'nobody' });
    expectIssue(await api.patch(`${B}/fields/${mail.id}`, { metadata: { format: 'email' } }), 'defaultValue');
    expect(await fieldNamed(api, B, 'Mail')).to.deep.include({ defaultValue: 'nobody', metadata: { format: 'text', extendedField: false } });
    expect(ok(await api.patch(`${B}/fields/${mail.id}`, { metadata: { format: 'email' }, defaultValue: 'a@b.co' })).defaultValue).to.equal('a@b.co');
    expect(ok(await api.post(`${B}/rows`, {}), 201).data.Mail).to.equal('a@b.co');
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
    const patched = ok(
      await api.patch(`${T}/fields/${color.id}`, {
        tags: [
          { name: 'Yellow', color: 'yellow' },
          { id: red.id, name: 'Crimson' },
        ],
      }),
    );
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
    const rel = await addField(api, T, {
      name: 'Bin',
      type: 'relation',
      metadata: { mode: 'single', relatedTableId: other.id, displayColumn: other.fields[0].id },
    });
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
