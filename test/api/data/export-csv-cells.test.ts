import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { cellConverter } from '../../../db/tables/export/export-cells.js';
import { csvField } from '../../../db/tables/export/sheet-format.js';
import type { FieldModel } from '../../../db/tables/types.js';
import { harness } from '../../setup/harness.js';
import { account, addField, client, ok, type Client } from './tables.helpers.js';
import { constant, field, formula, op } from './formulas.helpers.js';

/**
 * CSV exports write most cells in SQL (csv-columns.ts). Their bytes must be what export-cells.ts and the CSV writer's
 * quoting rule make of the API's rows: the same text, quoted and marked against formulas alike. Values at the edges:
 * numbers JavaScript and PostgreSQL print differently, whitespace JavaScript's \s knows, half-hour and historic
 * zone offsets, milliseconds, options that need quoting, a relation (written in Node) between SQL-written cells.
 */
describe('CSV export cells written by PostgreSQL', () => {
  let api: Client;
  let key: string;
  let fields: any[];
  let companies: Record<string, string>;

  const texts = [
    'plain',
    '  lead',
    'trail ',
    '\u00a0nbsp',
    'x\u3000',
    'a"b',
    'x,y',
    'line\nbreak',
    'cr\rx',
    '=1+2',
    '-5',
    '+1e5',
    '-x',
    '@sum',
    '\ttab',
    '',
    "'q'",
    'é日本',
    null,
  ];
  const numbers = [
    0,
    -0.00001,
    1e-7,
    0.30000000000000004,
    1e21,
    123456789012345680000,
    1234567890123456.8,
    999999999999999.9,
    1e15,
    -12.5,
    1.5e-5,
    2 ** 53 + 2,
    5e-324,
    1.7976931348623157e308,
    -1e-7,
    0.0001,
    42,
    null,
  ];
  const instants = ['2024-01-15T14:30:00.123Z', '2024-07-04T16:00:00Z', '1900-01-01T00:00:00Z', '2024-03-10T06:30:00.999Z', null];
  const options = ['Lead', '=danger', 'with "quote"', 'a,b', 'say "hi", then'];
  const picks = [[], ['Lead'], ['=danger', 'with "quote"'], ['a,b', 'Lead', '=danger'], ['say "hi", then'], ['Lead', 'a,b'], null];

  before(async () => {
    ({ key } = await account());
    api = client(key);
    const company = ok(await api.post('/tables', { name: 'cells_companies', columns: [{ name: 'Name', type: 'string' }] }), 201);
    companies = {};
    for (const name of ['Acme, Inc.', '=Evil']) companies[name] = ok(await api.post('/tables/cells_companies/rows', { Name: name }), 201).id;
    ok(await api.post('/tables', { name: 'cells', columns: [{ name: 'Text', type: 'string' }] }), 201);
    const base = '/tables/cells';
    await addField(api, base, { name: 'Num', type: 'number', metadata: { format: 'decimal' } });
    await addField(api, base, { name: 'Kolkata', type: 'date', metadata: { timezone: 'Asia/Kolkata' } });
    await addField(api, base, {
      name: 'Company',
      type: 'relation',
      metadata: { mode: 'single', relatedTableId: company.id, displayColumn: company.fields[0].id },
    });
    await addField(api, base, { name: 'StJohns', type: 'date', metadata: { timezone: 'America/St_Johns' } });
    // PostgreSQL reads CET as the fixed-offset abbreviation: this field is written by Node.
    await addField(api, base, { name: 'Cet', type: 'date', metadata: { timezone: 'CET' } });
    await addField(api, base, { name: 'Day', type: 'dateOnly' });
    await addField(api, base, { name: 'Flag', type: 'boolean' });
    const one = await addField(api, base, { name: 'One', type: 'select', metadata: { mode: 'singleSelect' } });
    const many = await addField(api, base, { name: 'Many', type: 'select', metadata: { mode: 'multiSelect' } });
    for (const f of [one, many]) for (const name of options) ok(await api.post(`${base}/fields/${f.id}/tags`, { name }), 201);
    await addField(api, base, formula('Third', op('divide', field('[Num]'), constant(3))));
    await addField(api, base, formula('Said', op('concat', constant('='), field('[Text]'))));
    // Past the range of doubles: JavaScript reads Infinity and 0 where a cast to float8 would fail.
    await addField(api, base, formula('Square', op('multiply', field('[Num]'), field('[Num]'))));
    const rows = numbers.map((n, i) => ({
      Text: texts[i % texts.length],
      Num: n,
      Kolkata: instants[i % instants.length],
      StJohns: instants[(i + 1) % instants.length],
      Cet: instants[(i + 2) % instants.length],
      Company: i % 3 === 2 ? null : companies[i % 3 ? '=Evil' : 'Acme, Inc.'],
      Day: i % 4 ? `2024-0${(i % 9) + 1}-1${i % 10}` : null,
      Flag: i % 3 === 2 ? null : i % 3 === 1,
      One: i % 6 === 5 ? null : options[i % options.length],
      Many: picks[i % picks.length],
    }));
    ok(await api.post(`${base}/rows/bulk`, { rows }), 201);
    fields = ok(await api.get(`${base}/fields?limit=500`)).agentry;
  });

  async function csvOf(body: unknown): Promise<string> {
    const response = await fetch(`${harness().baseUrl}/tables/cells/export/csv`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).to.equal(200);
    return (await response.text()).replace(/^\uFEFF/, '');
  }

  /** The CSV rows/list's rows (with `body`) make through export-cells.ts and the writer's quoting rule. */
  async function expectedCsv(names: string[] = fields.map((f) => f.name), body: Record<string, unknown> = {}): Promise<string> {
    const rows = ok(await api.post('/tables/cells/rows/list', { limit: 500, ...body })).agentry as { data: Record<string, unknown> }[];
    const company = (id: unknown) => Object.keys(companies).find((name) => companies[name] === id) ?? '';
    const shown = names.map((name) => fields.find((f) => f.name === name));
    const converters = shown.map((f) => cellConverter(f as FieldModel, 'csv'));
    // JSON carries the square of the largest double, Infinity, as null; the export writes what the row holds.
    const value = (row: { data: Record<string, unknown> }, name: string) =>
      name === 'Square' && row.data.Square === null && row.data.Num !== null ? Infinity : row.data[name];
    const lines = rows.map((row) =>
      shown.map((f, i) => csvField(f.name === 'Company' ? company(row.data.Company) : converters[i]!(value(row, f.name), new Map()))).join(','),
    );
    return [names.map((name) => csvField(name)).join(','), ...lines].map((line) => `${line}\r\n`).join('');
  }

  it('answers byte for byte what the API rows make of every cell', async () => {
    const csv = await csvOf({});
    expect(csv).to.equal(await expectedCsv());
    expect(parse(csv)).to.have.length(numbers.length + 1);
  });

  it('prints numbers as JavaScript does, dates with their zone offset, options and relations by name', async () => {
    const [header, ...rows] = parse(await csvOf({})) as string[][];
    const column = (name: string) => rows.map((r) => r[header!.indexOf(name)]);
    expect(column('Num')).to.deep.equal(numbers.map((n) => (n === null ? '' : String(n))));
    expect(column('Square')[13]).to.equal('Infinity');
    expect(column('Third')[12]).to.equal('0');
    expect(column('Num').slice(1, 6)).to.deep.equal(['-0.00001', '1e-7', '0.30000000000000004', '1e+21', '123456789012345680000']);
    expect(column('Kolkata').slice(0, 2)).to.deep.equal(['2024-01-15T20:00:00.123+05:30', '2024-07-04T21:30:00+05:30']);
    expect(column('StJohns').slice(0, 2)).to.deep.equal(['2024-07-04T13:30:00-02:30', '1899-12-31T20:29:08-03:31']);
    expect(column('Text').slice(9, 13)).to.deep.equal(["'=1+2", '-5', '+1e5', "'-x"]);
    expect(column('Said')[0]).to.equal("'=plain");
    expect(column('Company').slice(0, 3)).to.deep.equal(['Acme, Inc.', "'=Evil", '']);
    expect(column('Many').slice(0, 4)).to.deep.equal(['', 'Lead', `'=danger, with "quote"`, 'a,b, Lead, =danger']);
    expect(column('One').slice(0, 4)).to.deep.equal(['Lead', "'=danger", 'with "quote"', 'a,b']);
  });

  it('keeps a view order that mixes cells written in SQL and in Node, with filter and sort', async () => {
    const id = (name: string) => fields.find((f) => f.name === name).id;
    const names = ['Company', 'Num', 'Cet', 'Many', 'Text', 'Square'];
    const filter = { field: 'Flag', operator: 'isNotEmpty' };
    const sort = [{ field: 'Num', direction: 'desc' }];
    const view = ok(await api.post('/tables/cells/views', { name: 'Mixed', filter, sort, visibleFieldIds: names.map(id) }), 201);
    const csv = await csvOf({ viewId: view.id });
    expect(csv).to.equal(await expectedCsv(names, { filter, sort }));
    expect(parse(csv).length).to.be.within(3, numbers.length);
  });
});
