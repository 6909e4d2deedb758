/** Formula fields (SPEC.md "Formula expression nodes"): values computed in PostgreSQL, read like stored columns. */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { account, addField, client, createTable, expectIssue, ok, type Client } from './tables.helpers.js';
import { constant, field, formula, op, time, values } from './formulas.helpers.js';

/** Adds a formula field and returns the values it takes on every row. */
async function column(api: Client, base: string, name: string, expression: unknown, extra: Record<string, unknown> = {}): Promise<unknown[]> {
  await addField(api, base, formula(name, expression, extra));
  return (await values(api, base)).map((r) => r[name]);
}

describe('formula fields: values', () => {
  let api: Client;
  const base = '/tables/orders';
  before(async () => {
    api = client((await account()).key);
    await createTable(api, 'orders', [
      { name: 'Item', type: 'string' },
      { name: 'Amount', type: 'number' },
      { name: 'Qty', type: 'number', metadata: { format: 'integer' } },
      { name: 'Discount', type: 'number', metadata: { format: 'percent' } },
      { name: 'Ordered', type: 'date' },
      { name: 'Ship by', type: 'dateOnly' },
      { name: 'Paid', type: 'boolean' },
      { name: 'Size', type: 'select', metadata: { mode: 'singleSelect' } },
    ]);
    const size = (await ok(await api.get(`${base}/fields?limit=500`))).agentry.find((f: { name: string }) => f.name === 'Size');
    for (const name of ['Small', 'Large']) ok(await api.post(`${base}/fields/${size.id}/tags`, { name }), 201);
    ok(
      await api.post(`${base}/rows/bulk`, {
        rows: [
          { Item: 'apple', Amount: 20, Qty: 3, Discount: 50, Ordered: '2024-01-31T10:00:00Z', 'Ship by': '2024-02-29', Paid: true, Size: 'Large' },
          { Item: 'pear', Amount: 7.5, Qty: 0, Ordered: '2024-03-01T00:00:00Z', 'Ship by': '2024-03-05', Paid: false, Size: 'Small' },
          { Item: 'fig', Qty: 4, Discount: 10 },
        ],
      }),
      201,
    );
  });

  it('computes operators and constants; percent columns are divided by 100; division by zero is null', async () => {
    expect(await column(api, base, 'Double', op('multiply', field('[Amount]'), constant(2)))).to.deep.equal([40, 15, null]);
    expect(await column(api, base, 'Seven', constant(7))).to.deep.equal([7, 7, 7]);
    // 20 × (1 − 0.5) = 10; 7.5 × (1 − 0) = 7.5; 0 × (1 − 0.1) = 0
    expect(await column(api, base, 'Net', op('multiply', field('[Amount]', 0), op('subtract', constant(1), field('[Discount]', 0))))).to.deep.equal([
      10, 7.5, 0,
    ]);
    const unit = await column(api, base, 'Unit', op('divide', field('[Amount]'), field('[Qty]')));
    expect(unit[0]).to.be.closeTo(20 / 3, 1e-9);
    expect(unit.slice(1)).to.deep.equal([null, null]); // 7.5 / 0 and null / 4
    expect(await column(api, base, 'Total', op('add', field('[Amount]', 0), field('[Qty]'), constant(0.5)))).to.deep.equal([23.5, 8, 4.5]);
  });

  it('falls back when the field is empty (a percent fallback is divided by 100 too)', async () => {
    expect(await column(api, base, 'Amount or 1', field('[Amount]', 1))).to.deep.equal([20, 7.5, 1]);
    expect(await column(api, base, 'Rate', field('[Discount]', 25))).to.deep.equal([0.5, 0.25, 0.1]);
    expect(await column(api, base, 'Size name', field('[Size]', 'none'))).to.deep.equal(['Large', 'Small', 'none']);
  });

  it('concatenates, pads on the left without cutting, and branches with ifElse on a query filter', async () => {
    expect(await column(api, base, 'Label', op('concat', field('[Item]'), constant('-'), field('[Qty]')))).to.deep.equal([
      'apple-3',
      'pear-0',
      'fig-4',
    ]);
    expect(await column(api, base, 'Code', { type: 'padLeft', value: field('[Qty]'), length: 3, char: '0' })).to.deep.equal(['003', '000', '004']);
    expect(await column(api, base, 'Padded', { type: 'padLeft', value: field('[Item]'), length: 4, char: '*' })).to.deep.equal([
      'apple',
      'pear',
      '*fig',
    ]);
    const paid = { field: 'Paid', operator: 'eq', value: true };
    expect(await column(api, base, 'State', { type: 'ifElse', filter: paid, then: constant('paid'), else: field('[Item]') })).to.deep.equal([
      'paid',
      'pear',
      'fig',
    ]);
    // Branches of different types meet as text.
    expect(await column(api, base, 'Mixed', { type: 'ifElse', filter: paid, then: field('[Amount]'), else: constant('open') })).to.deep.equal([
      '20',
      'open',
      'open',
    ]);
  });

  it('adds, subtracts and diffs dates in every unit', async () => {
    // PostgreSQL keeps the month end: 31 January + 1 month = 29 February (2024 is a leap year).
    expect(await column(api, base, 'Next month', time('add', 'month', field('[Ordered]'), constant(1)))).to.deep.equal([
      '2024-02-29T10:00:00.000Z',
      '2024-04-01T00:00:00.000Z',
      null,
    ]);
    expect(await column(api, base, 'Earlier', time('subtract', 'hour', field('[Ordered]'), constant(3)))).to.deep.equal([
      '2024-01-31T07:00:00.000Z',
      '2024-02-29T21:00:00.000Z',
      null,
    ]);
    expect(await column(api, base, 'Plus 90 s', time('add', 'second', field('[Ordered]'), constant(90)))).to.deep.equal([
      '2024-01-31T10:01:30.000Z',
      '2024-03-01T00:01:30.000Z',
      null,
    ]);
    expect(await column(api, base, 'Plus 5 min', time('add', 'minute', field('[Ordered]'), constant(5)))).to.deep.equal([
      '2024-01-31T10:05:00.000Z',
      '2024-03-01T00:05:00.000Z',
      null,
    ]);
    expect(await column(api, base, 'Ship later', time('add', 'day', field('[Ship by]'), field('[Qty]')))).to.deep.equal([
      '2024-03-03',
      '2024-03-05',
      null,
    ]);
    expect(await column(api, base, 'Year before', time('subtract', 'year', field('[Ship by]'), constant(1)))).to.deep.equal([
      '2023-02-28',
      '2023-03-05',
      null,
    ]);
    // Ship by 2024-02-29 00:00 − Ordered 2024-01-31 10:00 = 28 days 14 hours; 2024-03-05 − 2024-03-01 = 4 days.
    expect(await column(api, base, 'Days', time('diff', 'day', field('[Ship by]'), field('[Ordered]')))).to.deep.equal([28, 4, null]);
    expect(await column(api, base, 'Hours', time('diff', 'hour', field('[Ship by]'), field('[Ordered]')))).to.deep.equal([28 * 24 + 14, 96, null]);
    expect(await column(api, base, 'Minutes', time('diff', 'minute', field('[Ship by]'), field('[Ordered]')))).to.deep.equal([
      (28 * 24 + 14) * 60,
      5760,
      null,
    ]);
    expect(await column(api, base, 'Seconds', time('diff', 'second', field('[Ship by]'), field('[Ordered]')))).to.deep.equal([
      (28 * 24 + 14) * 3600,
      345_600,
      null,
    ]);
    // 2025-06-15 − 2024-02-29 = 1 year 3 months 17 days; − 2024-03-05 = 1 year 3 months 10 days.
    expect(await column(api, base, 'Months', time('diff', 'month', constant('2025-06-15'), field('[Ship by]')))).to.deep.equal([15, 15, null]);
    expect(await column(api, base, 'Years', time('diff', 'year', constant('2025-06-15'), field('[Ship by]')))).to.deep.equal([1, 1, null]);
    // An amount beyond any calendar gives null, not an error.
    expect(await column(api, base, 'Far', time('add', 'day', field('[Ordered]'), constant(1e12)))).to.deep.equal([null, null, null]);
  });

  it('applies applyIf and shapes the output with numberConfig, dateConfig and stringConfig', async () => {
    const paid = { field: 'Paid', operator: 'eq', value: true };
    expect(await column(api, base, 'Paid double', op('multiply', field('[Amount]'), constant(2)), { applyIf: paid })).to.deep.equal([40, null, null]);
    expect(
      await column(api, base, 'Rounded', op('divide', field('[Amount]'), field('[Qty]')), { numberConfig: { format: 'decimal', decimals: 1 } }),
    ).to.deep.equal([6.7, null, null]);
    expect(await column(api, base, 'Qty number', op('concat', field('[Qty]')), { numberConfig: { format: 'integer' } })).to.deep.equal([3, 0, 4]);
    expect(await column(api, base, 'Amount text', field('[Amount]'), { stringConfig: { format: 'text' } })).to.deep.equal(['20', '7.5', null]);
    expect(await column(api, base, 'Ordered copy', field('[Ordered]'), { dateConfig: { timezone: 'UTC' } })).to.deep.equal([
      '2024-01-31T10:00:00.000Z',
      '2024-03-01T00:00:00.000Z',
      null,
    ]);
    const listed = ok(await api.get(`${base}/fields?limit=500`)).agentry.find((f: { name: string }) => f.name === 'Rounded');
    expect(listed).to.include({ type: 'formula', readOnly: true });
  });

  it('filters, sorts, counts, searches and pages by formula columns with the query language', async () => {
    await addField(api, base, formula('Twice', op('multiply', field('[Amount]'), constant(2))));
    await addField(api, base, formula('Sku', op('concat', constant('sku'), field('[Qty]'))));
    const gt = await values(api, base, { filter: { field: 'Twice', operator: 'gt', value: 20 } });
    expect(gt.map((r) => r.Item)).to.deep.equal(['apple']);
    const sorted = await values(api, base, { sort: [{ field: 'Twice', direction: 'asc' }] });
    expect(sorted.map((r) => r.Item)).to.deep.equal(['pear', 'apple', 'fig']);
    expect(ok(await api.post(`${base}/rows/count`, { filter: { field: 'Twice', operator: 'isEmpty' } })).count).to.equal(1);
    expect(ok(await api.post(`${base}/rows/count`, { filter: { field: 'Sku', operator: 'startsWith', value: 'SKU0' } })).count).to.equal(1);
    expect((await values(api, base, { search: 'sku4' })).map((r) => r.Item)).to.deep.equal(['fig']);
    const items: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await api.post(`${base}/rows/list`, { sort: [{ field: 'Twice', direction: 'desc' }], limit: 1, ...(cursor && { cursor }) }));
      items.push(...page.agentry.map((r: { data: { Item: string } }) => r.data.Item));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(items).to.deep.equal(['apple', 'pear', 'fig']);
    expectIssue(
      await api.post(`${base}/rows/list`, { filter: { field: 'Twice', operator: 'contains', value: 'x' } }),
      'filter.operator',
      'invalid_operator',
    );
  });

  it('refuses writes to formula fields and carries formula values in row answers and outbox events', async () => {
    expectIssue(await api.post(`${base}/rows`, { Item: 'kiwi', Twice: 3 }), 'data.Twice');
    const created = ok(await api.post(`${base}/rows`, { Item: 'kiwi', Amount: 4 }), 201);
    expect(created.data.Twice).to.equal(8);
    const patched = ok(await api.patch(`${base}/rows/${created.id}`, { Amount: 5 }));
    expect(patched.data.Twice).to.equal(10);
    expect(ok(await api.get(`${base}/rows/${created.id}`)).data.Twice).to.equal(10);
    const events = await harness()
      .orm.em.getKnex()
      .raw("select type, payload from outbox_events where payload->>'rowId' = ? order by id", [created.id]);
    const twice = (events.rows as { type: string; payload: any }[]).map((e) => [e.type, e.payload.row.data.Twice]);
    expect(twice).to.deep.equal([
      ['TABLE_ROW_CREATED', 8],
      ['TABLE_ROW_UPDATED', 10],
    ]);
    ok(await api.del(`${base}/rows/${created.id}`), 204);
  });
});
