import { expect } from 'chai';
import { FIELD_TYPE_HANDLERS, isInternalOnlyType, validateFieldMetadata } from '../../db/tables/field-types/index.js';
import { suggestKey } from '../../db/tables/field-types/suggest.js';
import { fromDbValue, promotedKeys, toDbValue } from '../../db/tables/field-types/values.js';
import { FIELD_TYPES, type FieldModel, type FieldType, type ToDbResult } from '../../db/tables/types.js';
import { fieldModel } from '../setup/field-models.js';

const ctx = { now: new Date('2024-03-05T23:30:00.000Z') };

function field(type: FieldType, metadata?: Record<string, unknown>, extra: Partial<FieldModel> = {}): FieldModel {
  const validated = validateFieldMetadata(type, metadata);
  expect(validated.issues, `metadata of ${type}`).to.deep.equal([]);
  return fieldModel(7, 'Status', type, validated.metadata, { column: 'f_7', ...extra });
}

function stored(result: ToDbResult): unknown {
  if (!result.ok) expect.fail(`expected ok, got: ${result.message}`);
  return result.value;
}

function refused(result: ToDbResult, pattern?: RegExp): void {
  expect(result.ok).to.equal(false);
  if (!result.ok && pattern) expect(result.message).to.match(pattern);
}

describe('field types: metadata', () => {
  it('registers a handler for every field type', () => {
    for (const type of FIELD_TYPES) expect(FIELD_TYPE_HANDLERS[type].type).to.equal(type);
  });

  it('fills defaults when metadata is omitted', () => {
    expect(validateFieldMetadata('string', undefined)).to.deep.equal({ metadata: { format: 'text', extendedField: false }, issues: [] });
    expect(validateFieldMetadata('date', undefined).metadata).to.deep.equal({ timezone: 'UTC', format: 'yyyy-MM-dd', timeFormat: '24h' });
    expect(validateFieldMetadata('select', undefined).metadata).to.deep.equal({ mode: 'singleSelect' });
    expect(validateFieldMetadata('entityRelation', undefined).metadata).to.deep.equal({
      entityModel: 'User',
      displayField: 'email',
      mode: 'single',
    });
    expect(validateFieldMetadata('boolean', undefined)).to.deep.equal({ metadata: {}, issues: [] });
  });

  it('requires metadata for relation and formula', () => {
    const { issues } = validateFieldMetadata('relation', undefined);
    expect(issues).to.deep.equal([
      { code: 'required', path: 'metadata', message: 'metadata is required for relation fields: mode, relatedTableId, displayColumn' },
    ]);
    expect(validateFieldMetadata('formula', undefined).issues[0]).to.include({ code: 'required', path: 'metadata' });
  });

  it('fills optional defaults into supplied metadata', () => {
    const { metadata, issues } = validateFieldMetadata('date', { timezone: 'Europe/Paris', timeFormat: '12h' });
    expect(issues).to.deep.equal([]);
    expect(metadata).to.deep.equal({ timezone: 'Europe/Paris', format: 'yyyy-MM-dd', timeFormat: '12h' });
    expect(validateFieldMetadata('dateOnly', {}).metadata).to.deep.equal({ format: 'yyyy-MM-dd' });
  });

  it('refuses metadata that is not an object', () => {
    for (const bad of [null, [], 'text', 3]) {
      expect(validateFieldMetadata('string', bad).issues).to.deep.equal([
        { code: 'invalid', path: 'metadata', message: 'metadata must be an object' },
      ]);
    }
  });

  it('rejects unknown keys with suggestions', () => {
    const date = validateFieldMetadata('date', { timezone: 'UTC', time_format: '12h', timeZone: 'UTC', formt: 'yyyy-MM-dd' });
    expect(date.issues.map((i) => [i.code, i.path])).to.deep.equal([
      ['unknown_field', 'metadata.time_format'],
      ['unknown_field', 'metadata.timeZone'],
      ['unknown_field', 'metadata.formt'],
    ]);
    expect(date.issues[0]!.message).to.include('"time_format"').and.include('did you mean "timeFormat"?');
    expect(date.issues[1]!.message).to.include('did you mean "timezone"?');
    expect(date.issues[2]!.message).to.include('did you mean "format"?');

    const string = validateFieldMetadata('string', { format: 'text', extended_field: true });
    expect(string.issues[0]!.message).to.include('did you mean "extendedField"?');

    const far = validateFieldMetadata('number', { format: 'integer', colour: 'red' });
    expect(far.issues).to.have.length(1);
    expect(far.issues[0]!.message).to.include('"colour"').and.not.include('did you mean');

    expect(validateFieldMetadata('boolean', { format: 'x' }).issues[0]).to.include({ code: 'unknown_field', path: 'metadata.format' });
  });

  it('suggests by normalized equality or edit distance up to 2', () => {
    expect(suggestKey('time_format', ['timezone', 'format', 'timeFormat'])).to.equal('timeFormat');
    expect(suggestKey('TIMEZONE', ['timezone', 'format'])).to.equal('timezone');
    expect(suggestKey('relatedTable', ['relatedTableId'])).to.equal('relatedTableId');
    expect(suggestKey('xyz', ['format'])).to.equal(undefined);
  });

  it('fails {} for types with required keys, not for the others', () => {
    const expected: Record<string, string[]> = {
      string: ['format'],
      number: ['format'],
      date: ['timezone'],
      select: ['mode'],
      relation: ['mode', 'relatedTableId', 'displayColumn'],
      entityRelation: ['entityModel', 'displayField', 'mode'],
      formula: ['expression'],
    };
    for (const [type, keys] of Object.entries(expected)) {
      const { issues } = validateFieldMetadata(type as FieldType, {});
      expect(issues, type).to.deep.equal(
        keys.map((k) => ({ code: 'required', path: `metadata.${k}`, message: `metadata.${k} is required for ${type} fields` })),
      );
    }
    for (const type of ['boolean', 'file', 'avatar', 'dateOnly'] as const) {
      expect(validateFieldMetadata(type, {}).issues, type).to.deep.equal([]);
    }
  });

  it('validates date formats and refuses the legacy values', () => {
    for (const format of ['MM/dd/yyyy', 'dd/MM/yyyy', 'yyyy-MM-dd', 'MMM d, yyyy', 'd MMM yyyy']) {
      expect(validateFieldMetadata('date', { timezone: 'UTC', format }).issues, format).to.deep.equal([]);
      expect(validateFieldMetadata('dateOnly', { format }).issues, format).to.deep.equal([]);
    }
    for (const format of ['datetime', 'date', 'time']) {
      const [issue] = validateFieldMetadata('date', { timezone: 'UTC', format }).issues;
      expect(issue).to.include({ code: 'invalid', path: 'metadata.format' });
      expect(issue!.message).to.include('legacy').and.include('"MM/dd/yyyy"').and.include('"d MMM yyyy"');
    }
    expect(validateFieldMetadata('dateOnly', { format: 'YYYY/MM/DD' }).issues[0]).to.include({ path: 'metadata.format' });
    expect(validateFieldMetadata('date', { timezone: 'Mars/Olympus' }).issues[0]).to.include({ code: 'invalid', path: 'metadata.timezone' });
    expect(validateFieldMetadata('date', { timezone: 'UTC', timeFormat: '36h' }).issues[0]).to.include({ path: 'metadata.timeFormat' });
  });

  it('refuses select options inline', () => {
    const { issues } = validateFieldMetadata('select', { mode: 'multiSelect', options: [{ name: 'a' }], tags: ['b'] });
    const message = 'select options cannot be created inline: create the field with mode, then add each option through the options (tags) endpoint';
    expect(issues).to.deep.equal([
      { code: 'invalid', path: 'metadata.options', message },
      { code: 'invalid', path: 'metadata.tags', message },
    ]);
    expect(validateFieldMetadata('select', { mode: 'dropdown' }).issues[0]).to.include({ path: 'metadata.mode' });
  });

  it('checks the values of string, number, relation, entityRelation, file and formula metadata', () => {
    const composed = validateFieldMetadata('string', { format: 'composedField' }).issues;
    expect(composed[0]!.message).to.match(/internal-only/);
    expect(validateFieldMetadata('string', { format: 'text', extendedField: 'yes' }).issues[0]).to.include({ path: 'metadata.extendedField' });
    expect(validateFieldMetadata('number', { format: 'currency', decimals: 11, currency: 'usd' }).issues.map((i) => i.path)).to.deep.equal([
      'metadata.decimals',
      'metadata.currency',
    ]);
    expect(validateFieldMetadata('number', { format: 'currency', decimals: 2, currency: 'EUR' }).issues).to.deep.equal([]);
    expect(validateFieldMetadata('relation', { mode: 'both', relatedTableId: 0, displayColumn: 1.5 }).issues.map((i) => i.path)).to.deep.equal([
      'metadata.mode',
      'metadata.relatedTableId',
      'metadata.displayColumn',
    ]);
    expect(
      validateFieldMetadata('entityRelation', { entityModel: 'Company', displayField: '', mode: 'single' }).issues.map((i) => i.path),
    ).to.deep.equal(['metadata.entityModel', 'metadata.displayField']);
    expect(validateFieldMetadata('file', { maxFileSize: -1, allowedFileTypes: 'pdf' }).issues.map((i) => i.path)).to.have.members([
      'metadata.maxFileSize',
      'metadata.allowedFileTypes',
    ]);
    expect(validateFieldMetadata('formula', { expression: 'a+b' }).issues[0]).to.include({ path: 'metadata.expression' });
    expect(validateFieldMetadata('formula', { expression: { type: 'constant', value: 1 } }).issues).to.deep.equal([]);
  });

  it('reports column types', () => {
    const column = (type: FieldType, metadata?: Record<string, unknown>) =>
      FIELD_TYPE_HANDLERS[type].columnType(validateFieldMetadata(type, metadata).metadata);
    expect(column('string')).to.equal('text');
    expect(column('number')).to.equal('numeric');
    expect(column('date')).to.equal('timestamptz');
    expect(column('dateOnly')).to.equal('date');
    expect(column('select', { mode: 'multiSelect' })).to.equal('integer[]');
    expect(column('relation', { mode: 'single', relatedTableId: 2, displayColumn: 3 })).to.equal('char(24)');
    expect(column('relation', { mode: 'multi', relatedTableId: 2, displayColumn: 3 })).to.equal(null);
    expect(column('entityRelation', { entityModel: 'Conversation', displayField: 'title', mode: 'multi' })).to.equal('text[]');
    expect(column('file')).to.equal('jsonb');
    expect(column('formula', { expression: {} })).to.equal(null);
  });

  it('knows the internal-only types', () => {
    expect(isInternalOnlyType('autoIncrement')).to.equal(true);
    expect(isInternalOnlyType('kanbanViewOrder')).to.equal(true);
    expect(isInternalOnlyType('string')).to.equal(false);
  });
});

describe('field types: values', () => {
  it('passes null through and refuses every formula write', () => {
    expect(toDbValue(field('string'), null, ctx)).to.deep.equal({ ok: true, value: null });
    expect(toDbValue(field('number'), undefined, ctx)).to.deep.equal({ ok: true, value: null });
    const formula = field('formula', { expression: { type: 'constant', value: 1 } });
    expect(toDbValue(formula, 3, ctx)).to.deep.equal({ ok: false, message: 'formula fields are read-only' });
    expect(toDbValue(formula, null, ctx).ok).to.equal(false);
  });

  it('string: checks the format', () => {
    expect(stored(toDbValue(field('string'), 'hello', ctx))).to.equal('hello');
    refused(toDbValue(field('string'), 12, ctx), /expected a string/);
    const email = field('string', { format: 'email' });
    expect(stored(toDbValue(email, 'ada@example.com', ctx))).to.equal('ada@example.com');
    refused(toDbValue(email, 'ada@', ctx), /email/);
    refused(toDbValue(email, 'ada example.com', ctx), /email/);
    const url = field('string', { format: 'url' });
    expect(stored(toDbValue(url, 'https://example.com/a?b=1', ctx))).to.equal('https://example.com/a?b=1');
    refused(toDbValue(url, 'ftp://example.com', ctx), /URL/);
    refused(toDbValue(url, 'not a url', ctx), /URL/);
    const phone = field('string', { format: 'phone_number' });
    expect(stored(toDbValue(phone, '+1 (555) 010-9999', ctx))).to.equal('+1 (555) 010-9999');
    expect(stored(toDbValue(phone, '030.123.456', ctx))).to.equal('030.123.456');
    refused(toDbValue(phone, '12345', ctx), /phone/);
    refused(toDbValue(phone, '555-CALL-NOW', ctx), /phone/);
    refused(toDbValue(phone, '1234567890123456', ctx), /phone/);
  });

  it('string: promotes extended_field for long text', () => {
    expect(promotedKeys(field('string', { format: 'text', extendedField: true }))).to.deep.equal({ extended_field: true });
    expect(promotedKeys(field('string'))).to.deep.equal({});
  });

  it('number: finite numbers, integer format, rounding, numeric strings from the database', () => {
    expect(stored(toDbValue(field('number'), 3.25, ctx))).to.equal(3.25);
    refused(toDbValue(field('number'), '3', ctx), /number/);
    refused(toDbValue(field('number'), Number.NaN, ctx), /number/);
    refused(toDbValue(field('number'), Infinity, ctx), /number/);
    refused(toDbValue(field('number', { format: 'integer' }), 2.5, ctx), /integer/);
    expect(stored(toDbValue(field('number', { format: 'integer' }), 4, ctx))).to.equal(4);
    const money = field('number', { format: 'currency', decimals: 2, currency: 'EUR' });
    expect(stored(toDbValue(money, 1.005, ctx))).to.equal(1.01);
    expect(stored(toDbValue(money, -2.345, ctx))).to.equal(-2.35);
    expect(stored(toDbValue(field('number', { format: 'decimal', decimals: 0 }), 2.5, ctx))).to.equal(3);
    expect(fromDbValue(money, '12.50')).to.equal(12.5);
    expect(fromDbValue(money, null)).to.equal(null);
  });

  it('boolean: true and false only', () => {
    expect(stored(toDbValue(field('boolean'), false, ctx))).to.equal(false);
    refused(toDbValue(field('boolean'), 'true', ctx), /true or false/);
    refused(toDbValue(field('boolean'), 1, ctx));
    expect(fromDbValue(field('boolean'), true)).to.equal(true);
  });

  it('date: converts wall-clock times in the field time zone, winter and summer', () => {
    const ny = field('date', { timezone: 'America/New_York' });
    const january = stored(toDbValue(ny, '2024-01-15T09:30:00', ctx)) as Date;
    expect(january).to.be.instanceOf(Date);
    expect(january.toISOString()).to.equal('2024-01-15T14:30:00.000Z');
    const july = stored(toDbValue(ny, '2024-07-15T09:30:00', ctx)) as Date;
    expect(july.toISOString()).to.equal('2024-07-15T13:30:00.000Z');
    expect((stored(toDbValue(ny, '2024-07-15', ctx)) as Date).toISOString()).to.equal('2024-07-15T04:00:00.000Z');
    // skipped hour moves forward; repeated hour takes the earlier instant
    expect((stored(toDbValue(ny, '2024-03-10T02:30:00', ctx)) as Date).toISOString()).to.equal('2024-03-10T07:30:00.000Z');
    expect((stored(toDbValue(ny, '2024-11-03T01:30:00', ctx)) as Date).toISOString()).to.equal('2024-11-03T05:30:00.000Z');
    const kolkata = field('date', { timezone: 'Asia/Kolkata' });
    expect((stored(toDbValue(kolkata, '2024-01-15T09:30:00.250', ctx)) as Date).toISOString()).to.equal('2024-01-15T04:00:00.250Z');
  });

  it('date: explicit offsets, NOW, invalid values', () => {
    const ny = field('date', { timezone: 'America/New_York' });
    expect((stored(toDbValue(ny, '2024-01-15T09:30:00Z', ctx)) as Date).toISOString()).to.equal('2024-01-15T09:30:00.000Z');
    expect((stored(toDbValue(ny, '2024-01-15T09:30:00+02:00', ctx)) as Date).toISOString()).to.equal('2024-01-15T07:30:00.000Z');
    expect((stored(toDbValue(ny, 'NOW', ctx)) as Date).getTime()).to.equal(ctx.now.getTime());
    // TODAY: midnight of the current day in the field's zone (2024-03-05 18:30 in New York)
    expect((stored(toDbValue(ny, 'TODAY', ctx)) as Date).toISOString()).to.equal('2024-03-05T05:00:00.000Z');
    for (const bad of ['2024-02-30T10:00:00', '2024-01-15T25:00:00', 'yesterday', '15/01/2024', 1705311000000]) {
      refused(toDbValue(ny, bad, ctx), /ISO-8601/);
    }
  });

  it('date: reads back as UTC ISO strings and promotes timezone and time_format', () => {
    const ny = field('date', { timezone: 'America/New_York', timeFormat: '12h' });
    const date = stored(toDbValue(ny, '2024-07-15T09:30:00', ctx));
    expect(fromDbValue(ny, date)).to.equal('2024-07-15T13:30:00.000Z');
    expect(fromDbValue(ny, '2024-07-15 09:30:00.5-04')).to.equal('2024-07-15T13:30:00.500Z');
    expect(fromDbValue(ny, '2024-07-15 19:00:00+05:30')).to.equal('2024-07-15T13:30:00.000Z');
    expect(promotedKeys(ny)).to.deep.equal({ timezone: 'America/New_York', time_format: '12h' });
  });

  it('dateOnly: real calendar dates, TODAY, Date or string from the database', () => {
    const day = field('dateOnly');
    expect(stored(toDbValue(day, '2024-02-29', ctx))).to.equal('2024-02-29');
    refused(toDbValue(day, '2023-02-29', ctx), /calendar date/);
    refused(toDbValue(day, '2024-1-5', ctx), /YYYY-MM-DD/);
    refused(toDbValue(day, '2024-01-05T00:00:00Z', ctx), /YYYY-MM-DD/);
    expect(stored(toDbValue(day, 'TODAY', ctx))).to.equal('2024-03-05');
    expect(fromDbValue(day, '2024-02-29')).to.equal('2024-02-29');
    expect(fromDbValue(day, new Date(2024, 1, 29))).to.equal('2024-02-29');
  });

  describe('select', () => {
    const options = [
      { id: 11, name: 'Open', color: null, order: 0 },
      { id: 12, name: 'open', color: null, order: 1 },
      { id: 13, name: 'Closed', color: 'red', order: 2 },
    ];

    it('single: option names to ids, exact match first', () => {
      const single = field('select', undefined, { options });
      expect(stored(toDbValue(single, 'open', ctx))).to.equal(12);
      expect(stored(toDbValue(single, 'CLOSED', ctx))).to.equal(13);
      expect(toDbValue(single, 'Pending', ctx)).to.deep.equal({ ok: false, message: 'unknown option "Pending" for field "Status"' });
      refused(toDbValue(single, 13, ctx), /option name/);
      expect(fromDbValue(single, 13)).to.equal('Closed');
      expect(fromDbValue(single, 99)).to.equal(null);
    });

    it('multi: arrays of names, duplicates removed, unknown ids dropped on read', () => {
      const multi = field('select', { mode: 'multiSelect' }, { options });
      expect(stored(toDbValue(multi, ['Closed', 'Open', 'closed'], ctx))).to.deep.equal([13, 11]);
      refused(toDbValue(multi, ['Closed', 'Nope'], ctx), /unknown option "Nope"/);
      refused(toDbValue(multi, [1], ctx), /option name/);
      expect(fromDbValue(multi, [13, 99, 11])).to.deep.equal(['Closed', 'Open']);
      expect(fromDbValue(multi, null)).to.deep.equal([]);
    });
  });

  it('relation: 24-hex ids, single or a deduplicated list', () => {
    const id = '65a1b2c3d4e5f60718293a4b';
    const single = field('relation', { mode: 'single', relatedTableId: 4, displayColumn: 9 });
    expect(stored(toDbValue(single, id, ctx))).to.equal(id);
    expect(stored(toDbValue(single, id.toUpperCase(), ctx))).to.equal(id);
    refused(toDbValue(single, 'abc', ctx), /row id/);
    refused(toDbValue(single, [id, '65a1b2c3d4e5f60718293a4c'], ctx), /one row id/);
    const multi = field('relation', { mode: 'multi', relatedTableId: 4, displayColumn: 9 });
    expect(stored(toDbValue(multi, [id, id], ctx))).to.deep.equal([id]);
    refused(toDbValue(multi, [id, 42], ctx), /row id/);
    expect(fromDbValue(single, id)).to.equal(id);
    expect(fromDbValue(multi, [id])).to.deep.equal([id]);
    expect(FIELD_TYPE_HANDLERS.relation.allowsDefault).to.equal(false);
  });

  it('entityRelation: user ids or conversation ids, with promoted keys', () => {
    const users = field('entityRelation', { entityModel: 'User', displayField: 'fullName', mode: 'multi' });
    expect(stored(toDbValue(users, [3, 5, 3], ctx))).to.deep.equal([3, 5]);
    refused(toDbValue(users, [0], ctx), /user id/);
    refused(toDbValue(users, ['3'], ctx), /user id/);
    expect(fromDbValue(users, [3, 5])).to.deep.equal([3, 5]);
    expect(promotedKeys(users)).to.deep.equal({ entity_model: 'User', display_field: 'fullName', relation_mode: 'multi' });
    const conversation = field('entityRelation', { entityModel: 'Conversation', displayField: 'title', mode: 'single' });
    expect(stored(toDbValue(conversation, 'conv_1', ctx))).to.equal('conv_1');
    refused(toDbValue(conversation, '', ctx), /conversation id/);
    expect(fromDbValue(conversation, 'conv_1')).to.equal('conv_1');
  });

  it('file: a list of distinct file ids (a jsonb cell)', () => {
    const file = field('file');
    const value = stored(toDbValue(file, ['f1', 'f2', 'f1'], ctx));
    expect(value).to.deep.equal(['f1', 'f2']);
    expect(fromDbValue(file, '["f1","f2"]')).to.deep.equal(['f1', 'f2']);
    refused(toDbValue(file, 'f1', ctx), /array/);
    refused(toDbValue(file, [1], ctx), /file id/);
    expect(fromDbValue(file, value)).to.deep.equal(['f1', 'f2']);
    expect(fromDbValue(file, ['f1'])).to.deep.equal(['f1']);
  });

  it('avatar: http(s) URLs', () => {
    const avatar = field('avatar');
    expect(stored(toDbValue(avatar, 'https://cdn.example.com/a.png', ctx))).to.equal('https://cdn.example.com/a.png');
    refused(toDbValue(avatar, 'javascript:alert(1)', ctx), /URL/);
    expect(fromDbValue(avatar, 'https://cdn.example.com/a.png')).to.equal('https://cdn.example.com/a.png');
  });
});
