import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { harness } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { waitUntil } from '../../setup/runs.js';
import { addField, expectError, expectIssue, ok } from './tables.helpers.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

async function exportOf(a: Account, path: string, body: unknown, key = a.generalKey) {
  const response = await fetch(`${harness().baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

function csvRows(bytes: Buffer): string[][] {
  return parse(bytes, { bom: true, relax_column_count: false }) as string[][];
}

async function xlsxRows(bytes: Buffer): Promise<unknown[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0]!;
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    rows.push(Array.from({ length: sheet.columnCount }, (_, i) => row.getCell(i + 1).value ?? null));
  });
  return rows;
}

describe('CSV and XLSX exports', () => {
  let a: Account;
  let O: string;
  let company: Record<string, string>;
  let fields: Record<string, any>;

  // Dates of the rows and how they read in New York (the field's time zone).
  const closes: Record<string, { csv: string; wall: string }> = {
    '2024-01-15T14:30:00.000Z': { csv: '2024-01-15T09:30:00-05:00', wall: '2024-01-15T09:30:00.000Z' },
    '2024-07-04T16:00:00.000Z': { csv: '2024-07-04T12:00:00-04:00', wall: '2024-07-04T12:00:00.000Z' },
  };

  before(async () => {
    a = await newAccount();
    const api = {
      post: (p: string, b: unknown = {}) => call('POST', p, { key: a.userKey, body: b }),
      get: (p: string) => call('GET', p, { key: a.userKey }),
      patch: (p: string, b: unknown) => call('PATCH', p, { key: a.userKey, body: b }),
      del: (p: string) => call('DELETE', p, { key: a.userKey }),
    };
    const companies = ok(await api.post('/tables', { name: 'export_companies', columns: [{ name: 'Name', type: 'string' }] }), 201);
    const companyName = companies.fields.find((f: any) => f.name === 'Name');
    company = {};
    for (const name of ['Société Générale', 'Initech']) company[name] = ok(await api.post('/tables/export_companies/rows', { Name: name }), 201).id;
    const object = ok(await api.post('/objects', { name: 'export_deals', columns: [{ name: 'Name', type: 'string' }] }), 201);
    O = `/objects/${object.name}`;
    fields = { Name: object.fields.find((f: any) => f.name === 'Name') };
    const add = async (body: Record<string, unknown>) => (fields[body.name as string] = await addField(api, O, body));
    await add({ name: 'Amount', type: 'number', metadata: { format: 'decimal', decimals: 2 } });
    await add({ name: 'Won', type: 'boolean' });
    await add({ name: 'Closes', type: 'date', metadata: { timezone: 'America/New_York' } });
    await add({ name: 'Signed', type: 'dateOnly' });
    await add({ name: 'Stage', type: 'select', metadata: { mode: 'singleSelect' } });
    await add({ name: 'Tags', type: 'select', metadata: { mode: 'multiSelect' } });
    await add({ name: 'Company', type: 'relation', metadata: { mode: 'single', relatedTableId: companies.id, displayColumn: companyName.id } });
    await add({ name: 'Owner', type: 'entityRelation' });
    for (const [field, names] of [
      ['Stage', ['Lead', 'Won']],
      ['Tags', ['hot', 'renewal']],
    ] as const) {
      for (const name of names) ok(await api.post(`${O}/fields/${fields[field].id}/options`, { name }), 201);
    }
    const rows = [
      {
        Name: 'Acme, "big" deal\nsecond line',
        Amount: 1234.5,
        Won: true,
        Closes: '2024-01-15T14:30:00Z',
        Signed: '2024-02-29',
        Stage: 'Won',
        Tags: ['hot', 'renewal'],
        Company: company['Société Générale'],
        Owner: a.user.id,
      },
      { Name: 'Béta 日本', Amount: -3, Won: false, Closes: '2024-07-04T16:00:00Z', Stage: 'Lead', Company: company.Initech },
      { Name: '  padded  ', Amount: 0 },
      { Name: 'Too big', Amount: 99999 },
    ];
    ok(await api.post(`${O}/rows/bulk`, { rows }), 201);
  });

  const query = { filter: { field: 'Amount', operator: 'lte', value: 5000 }, sort: [{ field: 'Amount', direction: 'desc' }] };
  const names = ['Name', 'Amount', 'Won', 'Closes', 'Signed', 'Stage', 'Tags', 'Company', 'Owner'];
  const label = (name: string, value: unknown): unknown => {
    if (name === 'Company') return value ? Object.keys(company).find((k) => company[k] === value) : value;
    if (name === 'Owner') return value === a.user.id ? a.user.email : value;
    if (Array.isArray(value)) return value.length ? value.join(', ') : null;
    return value;
  };
  const listed = async () => ok(await call('POST', `${O}/rows/list`, { key: a.generalKey, body: query })).agentry as any[];

  it('exports the matching rows as CSV, in order, cell by cell as the rows read', async () => {
    const res = await exportOf(a, `${O}/export/csv`, query);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="export_deals-\d{4}-\d{2}-\d{2}\.csv"/);
    const [header, ...cells] = csvRows(res.bytes);
    expect(header).to.deep.equal(names);
    const rows = await listed();
    expect(rows).to.have.length(3);
    expect(cells).to.have.length(rows.length);
    rows.forEach((row, r) =>
      names.forEach((name, c) => {
        const value = label(name, row.data[name]);
        const expected = value === null || value === undefined ? '' : name === 'Closes' ? closes[value as string]!.csv : String(value);
        expect(cells[r]![c], `row ${r} ${name}`).to.equal(expected);
      }),
    );
    expect(cells[0]![0]).to.equal('Acme, "big" deal\nsecond line');
  });

  it('exports XLSX with typed cells: numbers, booleans, dates in the field time zone, names of options, relations and users', async () => {
    const res = await exportOf(a, `${O}/export/xlsx`, query);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers.get('content-disposition')).to.match(/filename="export_deals-\d{4}-\d{2}-\d{2}\.xlsx"/);
    const [header, ...cells] = await xlsxRows(res.bytes);
    expect(header).to.deep.equal(names);
    const rows = await listed();
    expect(cells).to.have.length(rows.length);
    rows.forEach((row, r) =>
      names.forEach((name, c) => {
        const value = label(name, row.data[name]) ?? null;
        const cell = cells[r]![c];
        if (name === 'Closes' && value !== null) expect((cell as Date).toISOString(), `row ${r} ${name}`).to.equal(closes[value as string]!.wall);
        else if (name === 'Signed' && value !== null) expect((cell as Date).toISOString()).to.equal(`${value}T00:00:00.000Z`);
        else expect(cell, `row ${r} ${name}`).to.deep.equal(value);
      }),
    );
    expect(cells[0]!.slice(1, 3)).to.deep.equal([1234.5, true]);
  });

  it("exports a saved view's visible fields in its order, with its filter and sort", async () => {
    const view = ok(
      await call('POST', `${O}/views`, {
        key: a.userKey,
        body: {
          name: 'Closing',
          filter: { field: 'Closes', operator: 'isNotEmpty' },
          sort: [{ field: 'Name', direction: 'asc' }],
          visibleFieldIds: [fields.Closes.id, fields.Name.id, fields.Company.id],
        },
      }),
      201,
    );
    const csv = csvRows((await exportOf(a, `${O}/export/csv`, { viewId: view.id })).bytes);
    expect(csv).to.deep.equal([
      ['Closes', 'Name', 'Company'],
      ['2024-01-15T09:30:00-05:00', 'Acme, "big" deal\nsecond line', 'Société Générale'],
      ['2024-07-04T12:00:00-04:00', 'Béta 日本', 'Initech'],
    ]);
    const narrowed = csvRows((await exportOf(a, `${O}/export/csv`, { viewId: view.id, search: 'acme' })).bytes);
    expect(narrowed.map((r) => r[1])).to.deep.equal(['Name', 'Acme, "big" deal\nsecond line']);
  });

  it('answers 400 naming the problem before any byte, and 404 for another account', async () => {
    expectIssue(
      await call('POST', `${O}/export/csv`, { key: a.generalKey, body: { filter: { field: 'Nope', operator: 'eq', value: 1 } } }),
      /^filter/,
    );
    expect(expectIssue(await call('POST', `${O}/export/xlsx`, { key: a.generalKey, body: { viewId: 999999 } }), 'viewId').code).to.equal('not_found');
    expectIssue(await call('POST', `${O}/export/csv`, { key: a.generalKey, body: { limit: 5 } }), /limit|body/);
    const stranger = await newAccount();
    expectError(await call('POST', `${O}/export/csv`, { key: stranger.generalKey, body: {} }), 404, 'not_found');
  });

  it('streams a Table export from a database cursor: the first bytes arrive before the last row is read', async () => {
    const table = ok(
      await call('POST', '/tables', { key: a.userKey, body: { name: 'export_stream', columns: [{ name: 'Text', type: 'string' }] } }),
      201,
    );
    const column = `f_${table.fields[0].id}`;
    const knex = harness().orm.em.getKnex();
    // 20,000 rows of 1 KB: far more than socket and stream buffers hold.
    await knex.raw(
      `insert into data.rows_${table.id} (id, created_at, updated_at, "${column}") select lpad(to_hex(g), 24, '0'), now(), now(), repeat('x', 1000) || g from generate_series(1, 20000) g`,
    );
    const response = await fetch(`${harness().baseUrl}/tables/export_stream/export/csv`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.generalKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).to.equal(false);
    // With the first bytes in hand and nothing more taken, the export's cursor is still open, rows still unread.
    const open = await knex.raw(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'fetch % from export_rows'`,
    );
    expect(open.rows[0].n).to.equal(1);
    const chunks = [Buffer.from(first.value!)];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(Buffer.from(next.value));
    const rows = csvRows(Buffer.concat(chunks));
    expect(rows).to.have.length(1 + 20_000);
    expect(rows[1]).to.deep.equal([`${'x'.repeat(1000)}1`]);
    expect(rows.at(-1)).to.deep.equal([`${'x'.repeat(1000)}20000`]);
    // Once the export ends, its cursor and transaction are gone (committed just after the last byte).
    const stillOpen = async () =>
      (
        await knex.raw(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%' and query ilike 'fetch % from export_rows'`,
        )
      ).rows[0].n;
    await waitUntil(stillOpen, (n) => n === 0, "the export's cursor to close", 5_000);
  });
});

describe('CSV export and spreadsheet formulas', () => {
  it('writes text a spreadsheet would evaluate with a leading apostrophe, and leaves numbers as they are', async () => {
    const a = await newAccount();
    await call('POST', '/tables', { key: a.userKey, body: { name: 'notes', columns: [{ name: 'Text', type: 'string' }] } });
    for (const text of ['=HYPERLINK("http://x.test")', '@SUM(A1)', '+1', '-5', 'plain']) {
      expect((await call('POST', '/tables/notes/rows', { key: a.userKey, body: { Text: text } })).status).to.equal(201);
    }
    const res = await exportOf(a, '/tables/notes/export/csv', { sort: [{ field: 'createdAt', direction: 'asc' }] });
    const [, ...cells] = csvRows(res.bytes);
    expect(cells.map((row) => row[0])).to.deep.equal(['\'=HYPERLINK("http://x.test")', "'@SUM(A1)", '+1', '-5', 'plain']);
  });
});
