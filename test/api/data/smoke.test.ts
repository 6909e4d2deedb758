import { expect } from 'chai';
import { call, newAccount } from '../../setup/http.js';

describe('data smoke', () => {
  it('creates a table, fields, rows and lists them', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const objects = await call('GET', '/objects', { key });
    expect(objects.status, objects.text).to.equal(200);
    const t = await call('POST', '/tables', {
      key,
      body: {
        name: 'Leads',
        columns: [
          { name: 'Email', type: 'string', metadata: { format: 'email' } },
          { name: 'Score', type: 'number' },
        ],
      },
    });
    expect(t.status, t.text).to.equal(201);
    const stage = await call('POST', '/tables/leads/fields', { key, body: { name: 'Stage', type: 'select', metadata: { mode: 'singleSelect' } } });
    expect(stage.status, stage.text).to.equal(201);
    const opt = await call('POST', `/tables/leads/fields/${stage.body.id}/tags`, { key, body: { name: 'New', color: 'blue' } });
    expect(opt.status, opt.text).to.equal(201);
    const row = await call('POST', '/tables/leads/rows', { key, body: { Email: 'a@b.co', Score: 3, Stage: 'New' } });
    expect(row.status, row.text).to.equal(201);
    const bulk = await call('POST', '/tables/leads/rows/bulk', { key, body: { rows: [{ data: { Email: 'c@d.co', Score: 5 } }, { Score: 1 }] } });
    expect(bulk.status, bulk.text).to.equal(201);
    const list = await call('POST', '/tables/leads/rows/list', {
      key,
      body: { filter: { field: 'Score', operator: 'gte', value: 2 }, sort: [{ field: 'Score', direction: 'desc' }], limit: 1 },
    });
    expect(list.status, list.text).to.equal(200);
    expect(list.body.agentry[0].data.Score).to.equal(5);
    const next = await call('POST', '/tables/leads/rows/list', {
      key,
      body: {
        filter: { field: 'Score', operator: 'gte', value: 2 },
        sort: [{ field: 'Score', direction: 'desc' }],
        limit: 1,
        cursor: list.body.nextCursor,
      },
    });
    expect(next.body.agentry[0].data.Score, next.text).to.equal(3);
    const count = await call('POST', '/tables/leads/rows/count', { key, body: { search: 'a@b.co' } });
    expect(count.body, count.text).to.deep.equal({ count: 1 });
    const people = await call('GET', '/objects/people', { key });
    expect(people.status, people.text).to.equal(200);
    console.log(JSON.stringify(people.body.fields.map((f: { name: string }) => f.name)));
  });
});
