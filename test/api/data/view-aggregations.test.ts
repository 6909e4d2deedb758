/** View aggregations (list, create, patch, delete, compute) and fields/preview-formula, for Objects and Tables. */
import { expect } from 'chai';
import { account, addField, client, expectError, expectIssue, fieldsOf, ok, type Client } from './tables.helpers.js';
import { constant, field, formula, op } from './formulas.helpers.js';

describe('view aggregations', () => {
  let api: Client;
  let general: Client;
  let other: Client;
  const base = '/objects/projects';
  let ids: Record<string, number>;
  let viewId: number;
  before(async () => {
    const a = await account();
    api = client(a.key);
    general = client(a.general);
    other = client((await account()).key);
    ok(
      await api.post('/objects', {
        name: 'projects',
        columns: [
          { name: 'Budget', type: 'number' },
          { name: 'Status', type: 'string' },
          { name: 'Due', type: 'dateOnly' },
        ],
      }),
      201,
    );
    await addField(api, base, formula('Double', op('multiply', field('[Budget]'), constant(2))));
    ids = Object.fromEntries((await fieldsOf(api, base)).map((f) => [f.name, f.id]));
    ok(
      await api.post(`${base}/rows/bulk`, {
        rows: [
          { Budget: 10, Status: 'a', Due: '2024-05-01' },
          { Budget: 20, Status: '', Due: '2024-03-01' },
          { Status: null },
          { Budget: 40, Status: 'b', Due: '2024-09-30' },
          { Budget: 20, Status: 'a' },
        ],
      }),
      201,
    );
    viewId = ok(await api.post(`${base}/views`, { name: 'All' }), 201).id;
  });

  const aggs = () => `${base}/views/${viewId}/aggregations`;

  it('stores aggregations with the view and computes them in one go, formula columns included', async () => {
    const plan: [string, string][] = [
      ['Budget', 'sum'],
      ['Status', 'countEmpty'],
      ['Due', 'max'],
      ['Double', 'avg'],
    ];
    for (const [name, operation] of plan) ok(await api.post(aggs(), { fieldId: ids[name], operation }), 201);
    const listed = ok(await general.get(aggs())).agentry;
    expect(listed.map((a: { fieldId: number; operation: string }) => [a.fieldId, a.operation])).to.deep.equal(plan.map(([n, o]) => [ids[n], o]));
    const computed = ok(await general.post(`${aggs()}/compute`, {}));
    expect(computed.rows).to.equal(5);
    // Budget 10 + 20 + 40 + 20 = 90; Status '' and null are empty; Double (20 + 40 + 80 + 40) / 4 = 45.
    expect(computed.agentry.map((a: { value: unknown }) => a.value)).to.deep.equal([90, 2, '2024-09-30', 45]);
  });

  it('computes every operation, percent variants included, over the view filter or a given query', async () => {
    const patch = async (name: string, operation: string) => {
      const agg = ok(await api.get(aggs())).agentry.find((a: { fieldId: number }) => a.fieldId === ids[name]);
      return ok(await api.patch(`${aggs()}/${agg.id}`, { operation }));
    };
    const value = async (body: Record<string, unknown> = {}) =>
      ok(await api.post(`${aggs()}/compute`, body)).agentry.map((a: { value: unknown }) => a.value);
    const expectations: [string, Record<string, unknown>][] = [
      ['count', { Budget: 5 }],
      ['countFilled', { Budget: 4 }],
      ['unique', { Budget: 3 }],
      ['min', { Budget: 10 }],
      ['max', { Budget: 40 }],
      ['avg', { Budget: 22.5 }],
      ['percentEmpty', { Budget: 20 }],
      ['percentFilled', { Budget: 80 }],
      ['percentUnique', { Budget: 60 }],
    ];
    for (const [operation, expected] of expectations) {
      await patch('Budget', operation);
      expect((await value())[0], operation).to.equal(expected.Budget);
    }
    await patch('Budget', 'sum');
    // A given query replaces the view's filter: Budget >= 20 leaves 20, 40, 20.
    const given = await value({ filter: { field: 'Budget', operator: 'gte', value: 20 } });
    expect(given.slice(0, 3)).to.deep.equal([80, 1, '2024-09-30']);
    expect(given[3]).to.be.closeTo(160 / 3, 1e-9); // Double: (40 + 80 + 40) / 3
    // The view's own filter, filtering by a formula column: Double < 50 leaves Budget 10, 20, 20.
    ok(await api.patch(`${base}/views/${viewId}`, { filter: { field: 'Double', operator: 'lt', value: 50 } }));
    const filtered = await value();
    expect(filtered.slice(0, 3)).to.deep.equal([50, 1, '2024-05-01']);
    expect(filtered[3]).to.be.closeTo(100 / 3, 1e-9);
    ok(await api.patch(`${base}/views/${viewId}`, { filter: null }));
  });

  it('refuses operations that do not fit the field, duplicates and bad keys', async () => {
    expectIssue(await api.post(aggs(), { fieldId: ids.Status, operation: 'sum' }), 'operation', 'invalid_operation');
    expectIssue(await api.post(aggs(), { fieldId: ids.Budget, operation: 'median' }), 'operation', 'invalid');
    expectIssue(await api.post(aggs(), { fieldId: 999_999, operation: 'count' }), 'fieldId', 'not_found');
    expectError(await api.post(aggs(), { fieldId: ids.Budget, operation: 'count' }), 409, 'conflict');
    const first = ok(await api.get(aggs())).agentry[0];
    const status = ok(await api.get(aggs())).agentry.find((a: { fieldId: number }) => a.fieldId === ids.Status);
    expectIssue(await api.patch(`${aggs()}/${status.id}`, { operation: 'max' }), 'operation', 'invalid_operation');
    expectError(await general.post(aggs(), { fieldId: ids.Status, operation: 'count' }), 403, 'forbidden');
    expectError(await other.get(aggs()), 404, 'not_found');
    expectError(await other.post(`${aggs()}/compute`, {}), 404, 'not_found');
    ok(await api.del(`${aggs()}/${first.id}`), 204);
    expectError(await api.del(`${aggs()}/${first.id}`), 404, 'not_found');
    expect(ok(await api.get(aggs())).agentry).to.have.length(3);
  });

  it('work the same way for Tables', async () => {
    ok(await api.post('/tables', { name: 'costs', columns: [{ name: 'Cost', type: 'number', metadata: { format: 'percent' } }] }), 201);
    ok(await api.post('/tables/costs/rows/bulk', { rows: [{ Cost: 10 }, { Cost: 30 }, {}] }), 201);
    const [cost] = await fieldsOf(api, '/tables/costs');
    const view = ok(await api.post('/tables/costs/views', { name: 'Main', filter: { field: 'Cost', operator: 'isNotEmpty' } }), 201);
    ok(await api.post(`/tables/costs/views/${view.id}/aggregations`, { fieldId: cost.id, operation: 'sum' }), 201);
    const computed = ok(await api.post(`/tables/costs/views/${view.id}/aggregations/compute`, {}));
    expect(computed).to.deep.include({ rows: 2 });
    expect(computed.agentry[0].value).to.equal(40);
  });

  it('answers null, not an error, for an aggregation its formula no longer fits', async () => {
    ok(await api.patch(`${base}/fields/${ids.Double}`, { metadata: { expression: op('concat', field('[Budget]'), constant('!')) } }));
    const computed = ok(await api.post(`${aggs()}/compute`, {}));
    const double = computed.agentry.find((a: { fieldId: number }) => a.fieldId === ids.Double);
    expect(double).to.include({ operation: 'avg', value: null });
    expect(computed.rows).to.equal(5);
  });
});

describe('fields/preview-formula', () => {
  let api: Client;
  let general: Client;
  const base = '/tables/quotes';
  let rowIds: string[];
  before(async () => {
    const a = await account();
    api = client(a.key);
    general = client(a.general);
    ok(
      await api.post('/tables', {
        name: 'quotes',
        columns: [
          { name: 'Price', type: 'number' },
          { name: 'Name', type: 'string' },
        ],
      }),
      201,
    );
    rowIds = ok(await api.post(`${base}/rows/bulk`, { rows: [{ Price: 3, Name: 'x' }, { Price: 4 }, { Name: 'z' }] }), 201).agentry.map(
      (r: { id: string }) => r.id,
    );
  });

  it('evaluates an expression on the first rows or on given rows, before the field exists, with a GENERAL key too', async () => {
    const metadata = { expression: op('multiply', field('[Price]'), constant(1.5)) };
    const first = ok(await general.post(`${base}/fields/preview-formula`, { metadata }));
    expect(first).to.deep.equal({
      type: 'number',
      agentry: [
        { id: rowIds[0], value: 4.5 },
        { id: rowIds[1], value: 6 },
        { id: rowIds[2], value: null },
      ],
    });
    const some = ok(await api.post(`${base}/fields/preview-formula`, { metadata, rowIds: [rowIds[1]] }));
    expect(some.agentry).to.deep.equal([{ id: rowIds[1], value: 6 }]);
    const limited = ok(
      await api.post(`${base}/fields/preview-formula`, {
        name: 'Total',
        type: 'formula',
        metadata: { expression: op('concat', field('[Name]'), constant('!')) },
        limit: 1,
      }),
    );
    expect(limited).to.deep.equal({ type: 'string', agentry: [{ id: rowIds[0], value: 'x!' }] });
    expect((await fieldsOf(api, base)).map((f) => f.name)).to.deep.equal(['Price', 'Name']);
    ok(await api.post(`/objects/people/fields/preview-formula`, { metadata: { expression: constant(1) } }));
  });

  it('answers the same 400 as a field create', async () => {
    const expression = op('add', field('[Price]'), field('[Name]'));
    const preview = expectIssue(
      await api.post(`${base}/fields/preview-formula`, { metadata: { expression } }),
      'metadata.expression.arguments[1]',
      'not_numeric',
    );
    const create = expectIssue(await api.post(`${base}/fields`, formula('Bad', expression)), 'metadata.expression.arguments[1]', 'not_numeric');
    expect(preview).to.deep.equal(create);
    expectIssue(await api.post(`${base}/fields/preview-formula`, { metadata: {} }), 'metadata.expression', 'required');
    expectIssue(await api.post(`${base}/fields/preview-formula`, { metadata: { expression }, rowIds: ['nope'] }), /^rowIds/);
    expectError(await client((await account()).key).post(`${base}/fields/preview-formula`, { metadata: { expression } }), 404, 'not_found');
  });
});
