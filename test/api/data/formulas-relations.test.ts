/** Formulas that read other tables: `[Relation].[Field]` lookups and aggregates over direct and back relations. */
import { expect } from 'chai';
import { account, addField, client, createTable, expectIssue, fieldsOf, ok, type Client } from './tables.helpers.js';
import { constant, field, formula, values } from './formulas.helpers.js';

const aggregate = (operation: string, fieldName: string, extra: Record<string, unknown> = {}) => ({
  type: 'aggregate',
  operation,
  field: fieldName,
  ...extra,
});

describe('formula fields: relations', () => {
  let api: Client;
  const companies = '/tables/firms';
  const deals = '/tables/contracts';
  let companyField: number;
  before(async () => {
    api = client((await account()).key);
    const firms = await createTable(api, 'firms', [
      { name: 'Name', type: 'string' },
      { name: 'Employees', type: 'number' },
    ]);
    const name = firms.fields.find((f: { name: string }) => f.name === 'Name').id;
    await createTable(api, 'contracts', [
      { name: 'Title', type: 'string' },
      { name: 'Amount', type: 'number' },
      { name: 'Qty', type: 'number' },
    ]);
    companyField = (
      await addField(api, deals, { name: 'Company', type: 'relation', metadata: { relatedTableId: firms.id, displayColumn: name, mode: 'single' } })
    ).id;
    await addField(api, deals, { name: 'Partners', type: 'relation', metadata: { relatedTableId: firms.id, displayColumn: name, mode: 'multi' } });
    const [acme, globex, initech] = ok(
      await api.post(`${companies}/rows/bulk`, {
        rows: [{ Name: 'Acme', Employees: 100 }, { Name: 'Globex', Employees: 50 }, { Name: 'Initech' }],
      }),
      201,
    ).agentry.map((r: { id: string }) => r.id);
    ok(
      await api.post(`${deals}/rows/bulk`, {
        rows: [
          { Title: 'A', Amount: 100, Qty: 2, Company: acme, Partners: [globex, initech] },
          { Title: 'B', Amount: 50, Qty: 1, Company: acme, Partners: [acme] },
          { Title: 'C', Amount: 30, Qty: 3, Company: globex },
          { Title: 'D', Qty: 5 },
        ],
      }),
      201,
    );
  });

  it('reads a field of the linked row, with a fallback, and of the first row of a multi relation', async () => {
    await addField(api, deals, formula('Company name', field('[Company].[Name]')));
    await addField(api, deals, formula('Staff', field('[Company].[Employees]', 0)));
    await addField(api, deals, formula('First partner', field('[Partners].[Name]')));
    const rows = await values(api, deals);
    expect(rows.map((r) => r['Company name'])).to.deep.equal(['Acme', 'Acme', 'Globex', null]);
    expect(rows.map((r) => r.Staff)).to.deep.equal([100, 100, 50, 0]);
    expect(rows.map((r) => r['First partner'])).to.deep.equal(['Globex', 'Acme', null, null]);
    expect((await values(api, deals, { sort: [{ field: 'Company name', direction: 'desc' }] })).map((r) => r.Title)).to.deep.equal([
      'C',
      'A',
      'B',
      'D',
    ]);
  });

  it('aggregates over a direct relation: count, sum, avg, min, max', async () => {
    const partners = (operation: string) => aggregate(operation, 'Employees', { relation: 'Partners' });
    for (const op of ['count', 'sum', 'avg', 'min', 'max']) await addField(api, deals, formula(`Partner ${op}`, partners(op)));
    const rows = await values(api, deals);
    // A: Globex (50) and Initech (empty); B: Acme (100); C and D: no partners.
    expect(rows.map((r) => r['Partner count'])).to.deep.equal([1, 1, 0, 0]);
    expect(rows.map((r) => r['Partner sum'])).to.deep.equal([50, 100, 0, 0]);
    expect(rows.map((r) => r['Partner avg'])).to.deep.equal([50, 100, null, null]);
    expect(rows.map((r) => r['Partner min'])).to.deep.equal([50, 100, null, null]);
    expect(rows.map((r) => r['Partner max'])).to.deep.equal([50, 100, null, null]);
    await addField(api, deals, formula('Company staff', aggregate('sum', '[Employees]', { relation: '[Company]' })));
    expect((await values(api, deals)).map((r) => r['Company staff'])).to.deep.equal([100, 100, 50, 0]);
  });

  it('aggregates over back relations with filters and sumProduct weights', async () => {
    const back = (operation: string, fieldName: string, extra: Record<string, unknown> = {}) =>
      aggregate(operation, fieldName, { isBackRelation: true, backRelationColumnId: companyField, ...extra });
    await addField(api, companies, formula('Deals', back('count', 'Title')));
    await addField(api, companies, formula('Revenue', back('sum', 'Amount')));
    await addField(api, companies, formula('Weighted', back('sumProduct', 'Amount', { arguments: [field('[Qty]')] })));
    await addField(api, companies, formula('Big revenue', back('sum', 'Amount', { filter: { field: 'Amount', operator: 'gt', value: 60 } })));
    await addField(api, companies, formula('Partnered', aggregate('count', 'Title', { isBackRelation: true, relation: 'Partners' })));
    const rows = await values(api, companies);
    // Acme: A (100 × 2) and B (50 × 1); Globex: C (30 × 3); Initech: none. Partners: Acme in B, Globex and Initech in A.
    expect(rows.map((r) => r.Deals)).to.deep.equal([2, 1, 0]);
    expect(rows.map((r) => r.Revenue)).to.deep.equal([150, 30, 0]);
    expect(rows.map((r) => r.Weighted)).to.deep.equal([250, 90, 0]);
    expect(rows.map((r) => r['Big revenue'])).to.deep.equal([100, 0, 0]);
    expect(rows.map((r) => r.Partnered)).to.deep.equal([1, 1, 1]);
    const sorted = await values(api, companies, {
      sort: [{ field: 'Revenue', direction: 'desc' }],
      filter: { field: 'Deals', operator: 'gte', value: 1 },
    });
    expect(sorted.map((r) => r.Name)).to.deep.equal(['Acme', 'Globex']);
  });

  it('refuses aggregates that break the rules, at the node', async () => {
    const bad = async (expression: unknown, base: string, path: string, code: string) =>
      expectIssue(await api.post(`${base}/fields`, formula('Bad', expression)), path, code);
    await bad(aggregate('sum', 'Name', { relation: 'Partners' }), deals, 'metadata.expression.field', 'not_numeric');
    await bad(aggregate('avg', 'Employees', { relation: 'Title' }), deals, 'metadata.expression.relation', 'not_relation');
    await bad(aggregate('count', 'Employees'), deals, 'metadata.expression.relation', 'required');
    await bad(aggregate('sum', 'Revenue', { isBackRelation: true }), companies, 'metadata.expression.backRelationColumnId', 'ambiguous');
    await bad(
      aggregate('sum', 'Amount', { isBackRelation: true, backRelationColumnId: companyField, arguments: [field('[Title]')] }),
      companies,
      'metadata.expression.arguments',
      'invalid',
    );
    await bad(
      aggregate('sumProduct', 'Amount', { isBackRelation: true, backRelationColumnId: companyField, arguments: [field('[Title]')] }),
      companies,
      'metadata.expression.arguments[0]',
      'not_numeric',
    );
    await bad(
      aggregate('count', 'Company name', { isBackRelation: true, backRelationColumnId: companyField }),
      companies,
      'metadata.expression.field',
      'formula_reference',
    );
    await bad(field('[Company].[Company name]'), deals, 'metadata.expression', 'not_found');
    await bad(field('[Company].[Staff]'), deals, 'metadata.expression', 'not_found');
    await bad(
      { type: 'operator', operator: 'add', arguments: [field('[Company].[Name]'), constant(1)] },
      deals,
      'metadata.expression.arguments[0]',
      'not_numeric',
    );
    const fieldNames = (await fieldsOf(api, companies)).map((f) => f.name);
    expect(fieldNames).to.not.include('Bad');
  });

  it('refuses deleting a relation, a related field or a related table that formulas read', async () => {
    const employees = (await fieldsOf(api, companies)).find((f) => f.name === 'Employees');
    const res = await api.del(`${companies}/fields/${employees.id}`);
    expect(res.status, res.text).to.equal(409);
    expect(res.body.message).to.include('formula field');
    expect((await api.del(`${deals}/fields/${companyField}`)).status).to.equal(409);
    // Deleting the deals table would take away the rows the companies' formulas aggregate.
    const table = await api.del('/tables/contracts');
    expect(table.status, table.text).to.equal(409);
    expect(table.body.message).to.match(/is read by the formula field "[^"]+" of "firms"/);
  });
});
