import { expect } from 'chai';
import { call, newAccount } from '../../setup/http.js';

describe('concurrent schema changes and row writes', function () {
  this.timeout(60_000);

  it('never corrupts a table: every write lands, defaults reach every row, no request fails with a 500', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const created = await call('POST', '/tables', {
      key,
      body: {
        name: 'busy',
        columns: [
          { name: 'Name', type: 'string' },
          { name: 'Doomed', type: 'number' },
        ],
      },
    });
    const doomed = created.body.fields.find((f: { name: string }) => f.name === 'Doomed').id;

    const writes = Array.from({ length: 40 }, (_, i) => call('POST', '/tables/busy/rows', { key, body: { Name: `row ${i}` } }));
    const bulk = call('POST', '/tables/busy/rows/bulk', { key, body: { rows: Array.from({ length: 200 }, (_, i) => ({ Name: `bulk ${i}` })) } });
    const schema = [
      call('POST', '/tables/busy/fields', { key, body: { name: 'Tier', type: 'string', defaultValue: 'basic' } }),
      call('POST', '/tables/busy/fields', { key, body: { name: 'Score', type: 'number', defaultValue: 7 } }),
      call('DELETE', `/tables/busy/fields/${doomed}`, { key }),
    ];
    const reads = Array.from({ length: 10 }, () => call('POST', '/tables/busy/rows/list', { key, body: { limit: 20 } }));
    const results = await Promise.all([...writes, bulk, ...schema, ...reads]);

    for (const r of results) expect(r.status, r.text).to.be.below(500);
    for (const r of [...(await Promise.all(writes)), await bulk]) expect(r.status, r.text).to.equal(201);
    for (const r of await Promise.all(schema)) expect([201, 204]).to.include(r.status);

    const count = await call('POST', '/tables/busy/rows/count', { key, body: {} });
    expect(count.body.count).to.equal(240);
    const tiers = await call('POST', '/tables/busy/rows/count', {
      key,
      body: {
        filter: {
          and: [
            { field: 'Tier', operator: 'eq', value: 'basic' },
            { field: 'Score', operator: 'eq', value: 7 },
          ],
        },
      },
    });
    expect(tiers.body.count).to.equal(240);
    const detail = await call('GET', '/tables/busy', { key });
    expect(detail.body.fields.map((f: { name: string }) => f.name).sort()).to.deep.equal(['Name', 'Score', 'Tier']);
  });
});
