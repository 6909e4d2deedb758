import { expect } from 'chai';
import { account, addField, client, createTable, expectError, expectIssue, fieldsOf, ok, type Client } from './tables.helpers.js';

/** Field creation: every type, metadata validation, refused bodies. Updates are in fields-update.test.ts. */
describe('Fields: create', () => {
  let api: Client;
  const T = '/tables/catalogue';
  let target: any;

  before(async () => {
    api = client((await account()).key);
    await createTable(api, 'Catalogue');
    target = ok(await api.post('/objects', { name: 'Brands', columns: [{ name: 'Brand', type: 'string' }] }), 201);
  });

  /** Asserts the POST is refused with an issue at `path` and that the table's fields did not change. */
  async function refused(body: Record<string, unknown>, path: string | RegExp, code?: string) {
    const before = await fieldsOf(api, T);
    const issue = expectIssue(await api.post(`${T}/fields`, body), path, code);
    expect((await fieldsOf(api, T)).map((f) => f.id)).to.deep.equal(before.map((f) => f.id));
    return issue;
  }

  it('creates every type without metadata where the type has defaults', async () => {
    const expected: Record<string, Record<string, unknown>> = {
      string: { format: 'text', extendedField: false },
      number: { format: 'decimal' },
      boolean: {},
      date: { timezone: 'UTC', format: 'yyyy-MM-dd', timeFormat: '24h' },
      dateOnly: { format: 'yyyy-MM-dd' },
      select: { mode: 'singleSelect' },
      entityRelation: { entityModel: 'User', displayField: 'email', mode: 'single' },
      file: { showPreview: true },
      avatar: {},
    };
    for (const [type, metadata] of Object.entries(expected)) {
      const field = await addField(api, T, { name: `Plain ${type}`, type });
      expect(field, type).to.deep.include({ name: `Plain ${type}`, type, metadata, required: false, unique: false, defaultValue: null });
      expect(field.id, type).to.be.a('number');
    }
    expect(ok(await api.get(`${T}/fields/${(await fieldsOf(api, T)).find((f) => f.type === 'select').id}/tags`)).agentry).to.deep.equal([]);
  });

  it('refuses relation and formula without metadata (their keys are required)', async () => {
    await refused({ name: 'Rel', type: 'relation' }, 'metadata', 'required');
    await refused({ name: 'Calc', type: 'formula' }, 'metadata', 'required');
  });

  it('creates every type with full metadata', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['string', { format: 'url' }],
      ['string', { format: 'phone_number', extendedField: false }],
      ['number', { format: 'currency', currency: 'EUR', decimals: 2 }],
      ['number', { format: 'percent' }],
      ['boolean', {}],
      ['date', { timezone: 'America/New_York', format: 'MMM d, yyyy', timeFormat: '12h' }],
      ['dateOnly', { format: 'd MMM yyyy' }],
      ['select', { mode: 'multiSelect' }],
      ['relation', { mode: 'single', relatedTableId: target.id, displayColumn: target.fields[0].id }],
      ['relation', { mode: 'multi', relatedTableId: target.id, displayColumn: target.fields[0].id }],
      ['entityRelation', { entityModel: 'Conversation', displayField: 'title', mode: 'multi' }],
      ['file', { showPreview: false, allowedFileTypes: ['pdf', 'png'], maxFileSize: 1_000_000 }],
      ['avatar', {}],
      [
        'formula',
        {
          expression: {
            type: 'operator',
            operator: 'concat',
            arguments: [
              { type: 'constant', value: 'a' },
              { type: 'constant', value: 'b' },
            ],
          },
        },
      ],
    ];
    for (const [index, [type, metadata]] of cases.entries()) {
      const field = await addField(api, T, { name: `Full ${index}`, type, metadata });
      expect(field.type, type).to.equal(type);
      expect(field.metadata, type).to.deep.include(metadata);
    }
    const formula = (await fieldsOf(api, T)).find((f) => f.type === 'formula');
    expect(formula.readOnly).to.equal(true);
    const email = await addField(api, T, { name: 'Contact email', type: 'string', metadata: { format: 'email' }, required: true, unique: true });
    expect(email).to.include({ required: true, unique: true });
  });

  it('reads back promoted keys: timezone, time_format, extended_field, entity_model…', async () => {
    const date = await addField(api, T, { name: 'Due', type: 'date', metadata: { timezone: 'Europe/Paris', timeFormat: '12h' } });
    expect(date).to.include({ timezone: 'Europe/Paris', time_format: '12h' });
    expect(date.metadata).to.deep.equal({ timezone: 'Europe/Paris', format: 'yyyy-MM-dd', timeFormat: '12h' });
    const notes = await addField(api, T, { name: 'Notes', type: 'string', metadata: { format: 'text', extendedField: true } });
    expect(notes.extended_field).to.equal(true);
    const owner = await addField(api, T, {
      name: 'Owner',
      type: 'entityRelation',
      metadata: { entityModel: 'User', displayField: 'fullName', mode: 'single' },
    });
    expect(owner).to.include({ entity_model: 'User', display_field: 'fullName', relation_mode: 'single' });
    const listed = await fieldsOf(api, T);
    expect(listed.find((f) => f.name === 'Due')).to.include({ timezone: 'Europe/Paris', time_format: '12h' });
    expect(listed.find((f) => f.name === 'Notes')).to.include({ extended_field: true });
    expect(ok(await api.get(T)).fields.find((f: any) => f.name === 'Owner')).to.include({ entity_model: 'User' });
  });

  it('refuses unknown top-level keys, naming them', async () => {
    const issue = await refused({ name: 'Strict', type: 'string', color: 'red' }, 'color', 'unknown_field');
    expect(issue.message).to.match(/not an allowed/);
    await refused({ name: 'Strict', type: 'string', recordTypeId: 1 }, 'recordTypeId', 'unknown_field');
    await refused({ type: 'string' }, 'name', 'required');
    await refused({ name: 'Strict', type: 'text' }, 'type', 'invalid');
  });

  it('refuses unknown metadata keys with a suggestion', async () => {
    let issue = await refused(
      { name: 'When', type: 'date', metadata: { timezone: 'UTC', time_format: '24h' } },
      'metadata.time_format',
      'unknown_field',
    );
    expect(issue.message).to.include('"timeFormat"');
    issue = await refused({ name: 'When', type: 'date', metadata: { timeZone: 'UTC' } }, 'metadata.timeZone', 'unknown_field');
    expect(issue.message).to.include('"timezone"');
    issue = await refused({ name: 'Site', type: 'string', metadata: { formt: 'url' } }, 'metadata.formt', 'unknown_field');
    expect(issue.message).to.include('"format"');
    issue = await refused({ name: 'Flag', type: 'boolean', metadata: { color: 'green' } }, 'metadata.color', 'unknown_field');
    expect(issue.message).to.include('boolean');
  });

  it('refuses {} metadata for types with required keys and accepts it for the others', async () => {
    const required: Record<string, string[]> = {
      string: ['format'],
      number: ['format'],
      date: ['timezone'],
      select: ['mode'],
      relation: ['relatedTableId', 'displayColumn', 'mode'],
      entityRelation: ['entityModel', 'displayField', 'mode'],
      formula: ['expression'],
    };
    for (const [type, keys] of Object.entries(required)) {
      const res = await api.post(`${T}/fields`, { name: `Empty ${type}`, type, metadata: {} });
      const issues = expectError(res, 400, 'bad_request');
      expect(
        issues.filter((i) => i.code === 'required').map((i) => i.path),
        type,
      ).to.have.members(keys.map((k) => `metadata.${k}`));
    }
    for (const type of ['boolean', 'dateOnly', 'file', 'avatar'])
      ok(await api.post(`${T}/fields`, { name: `Empty ${type}`, type, metadata: {} }), 201);
    expect((await fieldsOf(api, T)).map((f) => f.name)).to.not.include('Empty string');
  });

  it('refuses invalid date formats, legacy values and bad time zones', async () => {
    await refused({ name: 'D', type: 'date', metadata: { timezone: 'UTC', format: 'YYYY/MM/DD' } }, 'metadata.format', 'invalid');
    for (const legacy of ['datetime', 'date', 'time']) {
      const issue = await refused({ name: 'D', type: 'date', metadata: { timezone: 'UTC', format: legacy } }, 'metadata.format', 'invalid');
      expect(issue.message).to.include('legacy');
    }
    await refused({ name: 'D', type: 'dateOnly', metadata: { format: 'date' } }, 'metadata.format', 'invalid');
    await refused({ name: 'D', type: 'date', metadata: { timezone: 'Mars/Olympus' } }, 'metadata.timezone', 'invalid');
    await refused({ name: 'D', type: 'date', metadata: { timezone: 'UTC', timeFormat: '36h' } }, 'metadata.timeFormat', 'invalid');
    await refused({ name: 'N', type: 'number', metadata: { format: 'integer', currency: 'dollars' } }, 'metadata.currency', 'invalid');
    await refused({ name: 'S', type: 'select', metadata: { mode: 'dropdown' } }, 'metadata.mode', 'invalid');
  });

  it('refuses internal-only types and the composedField string format', async () => {
    for (const type of ['autoIncrement', 'kanbanViewOrder']) {
      const issue = await refused({ name: 'Internal', type }, 'type', 'invalid');
      expect(issue.message).to.include('internal');
    }
    const issue = await refused({ name: 'Composed', type: 'string', metadata: { format: 'composedField' } }, 'metadata.format', 'invalid');
    expect(issue.message).to.include('composedField');
  });

  it('refuses select options supplied inline', async () => {
    await refused({ name: 'Stage', type: 'select', metadata: { mode: 'singleSelect', options: [{ name: 'A' }] } }, 'metadata.options');
    await refused({ name: 'Stage', type: 'select', metadata: { mode: 'singleSelect', tags: ['A'] } }, 'metadata.tags');
    await refused({ name: 'Stage', type: 'select', metadata: { mode: 'singleSelect' }, options: [{ name: 'A' }] }, 'options');
    await refused({ name: 'Stage', type: 'select', tags: [{ name: 'A' }] }, 'tags');
  });

  it("refuses a relation to another account's table with issue code not_found and creates nothing", async () => {
    const other = client((await account()).key);
    const theirs = await createTable(other, 'Elsewhere', [{ name: 'Label', type: 'string' }]);
    const res = await api.post(`${T}/fields`, {
      name: 'Foreign',
      type: 'relation',
      metadata: { mode: 'single', relatedTableId: theirs.id, displayColumn: theirs.fields[0].id },
    });
    expect(res.body.code).to.equal('bad_request');
    await refused(
      { name: 'Foreign', type: 'relation', metadata: { mode: 'single', relatedTableId: theirs.id, displayColumn: theirs.fields[0].id } },
      'metadata.relatedTableId',
      'not_found',
    );
    await refused(
      { name: 'Foreign', type: 'relation', metadata: { mode: 'multi', relatedTableId: 999_999, displayColumn: 1 } },
      'metadata.relatedTableId',
      'not_found',
    );
    await refused(
      { name: 'Foreign', type: 'relation', metadata: { mode: 'single', relatedTableId: target.id, displayColumn: theirs.fields[0].id } },
      'metadata.displayColumn',
      'not_found',
    );
    // The failed multi relation left no link table behind: the same field can be created properly now.
    ok(
      await api.post(`${T}/fields`, {
        name: 'Foreign',
        type: 'relation',
        metadata: { mode: 'multi', relatedTableId: target.id, displayColumn: target.fields[0].id },
      }),
      201,
    );
  });

  it('refuses a second field with the same name (case-insensitive) with 409', async () => {
    await addField(api, T, { name: 'Sku', type: 'string' });
    expectError(await api.post(`${T}/fields`, { name: 'SKU', type: 'number' }), 409, 'conflict');
    expect((await fieldsOf(api, T)).filter((f) => f.name.toLowerCase() === 'sku')).to.have.length(1);
  });

  it('answers 404 for the fields of an unknown table', async () => {
    expectError(await api.get('/tables/nope/fields'), 404, 'not_found');
    expectError(await api.post('/tables/nope/fields', { name: 'A', type: 'string' }), 404, 'not_found');
  });
});
