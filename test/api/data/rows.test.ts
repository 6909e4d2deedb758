import { expect } from 'chai';
import { call, newAccount } from '../../setup/http.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

/** A table `deals_<n>` with one field of most types, and its select options. */
async function dealsTable(a: Account, name = `deals_${Math.random().toString(36).slice(2, 8)}`) {
  const key = a.userKey;
  const created = await call('POST', '/tables', {
    key,
    body: {
      name,
      columns: [
        { name: 'Title', type: 'string', required: true },
        { name: 'Contact', type: 'string', metadata: { format: 'email' } },
        { name: 'Seats', type: 'number', metadata: { format: 'integer' } },
        { name: 'Won', type: 'boolean' },
        { name: 'Closed at', type: 'date', metadata: { timezone: 'Europe/Paris' } },
        { name: 'Due', type: 'dateOnly' },
        { name: 'Stage', type: 'select', metadata: { mode: 'singleSelect' } },
        { name: 'Labels', type: 'select', metadata: { mode: 'multiSelect' } },
      ],
    },
  });
  expect(created.status, created.text).to.equal(201);
  const field = (n: string) => created.body.fields.find((f: { name: string }) => f.name === n);
  for (const option of ['Lead', 'Won', 'Lost'])
    await call('POST', `/tables/${name}/fields/${field('Stage').id}/tags`, { key, body: { name: option } });
  for (const option of ['hot', 'cold', 'vip'])
    await call('POST', `/tables/${name}/fields/${field('Labels').id}/tags`, { key, body: { name: option } });
  return { name, key, tableId: created.body.id as number };
}

describe('rows of Tables', () => {
  let a: Account;
  let t: Awaited<ReturnType<typeof dealsTable>>;
  before(async () => {
    a = await newAccount();
    t = await dealsTable(a);
  });

  it('creates a row from flat or nested values and returns every field converted', async () => {
    const flat = await call('POST', `/tables/${t.name}/rows`, {
      key: t.key,
      body: {
        Title: 'Acme',
        Contact: 'ops@acme.test',
        Seats: 12,
        Won: true,
        'Closed at': '2024-07-01T09:30:00',
        Due: '2024-07-15',
        Stage: 'Lead',
        Labels: ['hot', 'vip'],
      },
    });
    expect(flat.status, flat.text).to.equal(201);
    expect(flat.body.id).to.match(/^[0-9a-f]{24}$/);
    expect(flat.body.data).to.deep.equal({
      Title: 'Acme',
      Contact: 'ops@acme.test',
      Seats: 12,
      Won: true,
      'Closed at': '2024-07-01T07:30:00.000Z', // wall time in Europe/Paris (UTC+2 in July)
      Due: '2024-07-15',
      Stage: 'Lead',
      Labels: ['hot', 'vip'],
    });
    const nested = await call('POST', `/tables/${t.name}/rows`, { key: t.key, body: { data: { title: 'Nested', seats: 1 } } });
    expect(nested.status).to.equal(201);
    expect(nested.body.data).to.include({ Title: 'Nested', Seats: 1, Stage: null });
    const got = await call('GET', `/tables/${t.name}/rows/${nested.body.id}`, { key: a.generalKey });
    expect(got.body).to.deep.equal(nested.body);
  });

  it('refuses invalid values with 400 naming each field, and writes nothing', async () => {
    const before = (await call('POST', `/tables/${t.name}/rows/count`, { key: t.key, body: {} })).body.count;
    const res = await call('POST', `/tables/${t.name}/rows`, {
      key: t.key,
      body: { Title: 'x', Contact: 'not-an-email', Seats: 1.5, Won: 'yes', Stage: 'Nope', Bogus: 1, Due: '2024-02-30' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('bad_request');
    const paths = res.body.details.issues.map((i: { path: string }) => i.path);
    expect(paths).to.include.members(['data.Contact', 'data.Seats', 'data.Won', 'data.Stage', 'data.Bogus', 'data.Due']);
    const missing = await call('POST', `/tables/${t.name}/rows`, { key: t.key, body: { Seats: 2 } });
    expect(missing.status).to.equal(400);
    expect(missing.body.details.issues).to.deep.include({ code: 'required', path: 'data.Title', message: '"Title" is required' });
    expect((await call('POST', `/tables/${t.name}/rows/count`, { key: t.key, body: {} })).body.count).to.equal(before);
  });

  it('bulk-creates all or nothing', async () => {
    const countBefore = (await call('POST', `/tables/${t.name}/rows/count`, { key: t.key, body: {} })).body.count;
    const bad = await call('POST', `/tables/${t.name}/rows/bulk`, { key: t.key, body: { rows: [{ Title: 'ok' }, { Title: 'bad', Seats: 'many' }] } });
    expect(bad.status).to.equal(400);
    expect(bad.body.details.issues[0].path).to.equal('rows[1].data.Seats');
    expect((await call('POST', `/tables/${t.name}/rows/count`, { key: t.key, body: {} })).body.count).to.equal(countBefore);
    const good = await call('POST', `/tables/${t.name}/rows/bulk`, { key: t.key, body: { rows: [{ Title: 'b1' }, { data: { Title: 'b2' } }] } });
    expect(good.status).to.equal(201);
    expect(good.body.agentry.map((r: { data: { Title: string } }) => r.data.Title)).to.deep.equal(['b1', 'b2']);
  });

  it('patches the given fields only, flat or under data, and deletes', async () => {
    const row = (await call('POST', `/tables/${t.name}/rows`, { key: t.key, body: { Title: 'Patch me', Seats: 3, Labels: ['cold'] } })).body;
    const flat = await call('PATCH', `/tables/${t.name}/rows/${row.id}`, { key: t.key, body: { Seats: 4 } });
    expect(flat.body.data).to.include({ Title: 'Patch me', Seats: 4 });
    const nested = await call('PATCH', `/tables/${t.name}/rows/${row.id}`, { key: t.key, body: { data: { Labels: [], Stage: 'Won' } } });
    expect(nested.body.data).to.deep.include({ Labels: [], Stage: 'Won', Seats: 4 });
    expect(new Date(nested.body.updatedAt).getTime()).to.be.greaterThan(new Date(row.updatedAt).getTime() - 1);
    const cleared = await call('PATCH', `/tables/${t.name}/rows/${row.id}`, { key: t.key, body: { Title: null } });
    expect(cleared.status).to.equal(400);
    expect((await call('DELETE', `/tables/${t.name}/rows/${row.id}`, { key: t.key })).status).to.equal(204);
    expect((await call('GET', `/tables/${t.name}/rows/${row.id}`, { key: t.key })).status).to.equal(404);
    expect((await call('DELETE', `/tables/${t.name}/rows/${row.id}`, { key: t.key })).status).to.equal(404);
  });

  it('stores file id lists and avatar URLs and reads them back unchanged', async () => {
    const name = `media_${Math.random().toString(36).slice(2, 8)}`;
    await call('POST', '/tables', {
      key: t.key,
      body: {
        name,
        columns: [
          { name: 'Files', type: 'file' },
          { name: 'Face', type: 'avatar' },
        ],
      },
    });
    const created = await call('POST', `/tables/${name}/rows`, { key: t.key, body: { Files: ['f1', 'f2'], Face: 'https://img.example.test/a.png' } });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.data).to.deep.equal({ Files: ['f1', 'f2'], Face: 'https://img.example.test/a.png' });
    const patched = await call('PATCH', `/tables/${name}/rows/${created.body.id}`, { key: t.key, body: { Files: ['f3'] } });
    expect(patched.body.data.Files).to.deep.equal(['f3']);
    expect((await call('GET', `/tables/${name}/rows/${created.body.id}`, { key: t.key })).body.data.Files).to.deep.equal(['f3']);
    const notFiles = await call('POST', `/tables/${name}/rows`, { key: t.key, body: { Files: 'f1', Face: 'not a url' } });
    expect(notFiles.body.details.issues.map((i: { path: string }) => i.path)).to.deep.equal(['data.Files', 'data.Face']);
  });

  it('keeps SQL-looking values as data', async () => {
    const evil = `'); drop table users; --`;
    const row = await call('POST', `/tables/${t.name}/rows`, { key: t.key, body: { Title: evil } });
    expect(row.body.data.Title).to.equal(evil);
    const found = await call('POST', `/tables/${t.name}/rows/list`, {
      key: t.key,
      body: { filter: { field: 'Title', operator: 'eq', value: evil } },
    });
    expect(found.body.agentry.map((r: { id: string }) => r.id)).to.deep.equal([row.body.id]);
    expect((await call('GET', '/me', { key: t.key })).status).to.equal(200);
  });

  it('is invisible to other accounts and refuses GENERAL keys on writes', async () => {
    const other = await newAccount();
    const row = (await call('POST', `/tables/${t.name}/rows`, { key: t.key, body: { Title: 'private' } })).body;
    expect((await call('GET', `/tables/${t.name}/rows/${row.id}`, { key: other.userKey })).status).to.equal(404);
    expect((await call('POST', `/tables/${t.tableId}/rows/list`, { key: other.userKey, body: {} })).status).to.equal(404);
    expect((await call('POST', `/tables/${t.name}/rows`, { key: a.generalKey, body: { Title: 'x' } })).status).to.equal(403);
  });
});

describe('rows/list and rows/count', () => {
  let t: Awaited<ReturnType<typeof dealsTable>>;
  before(async () => {
    const a = await newAccount();
    t = await dealsTable(a);
    const rows = Array.from({ length: 37 }, (_, i) => ({
      Title: `Deal ${String(i).padStart(2, '0')} ${i % 3 === 0 ? 'alpha' : 'beta'}`,
      Seats: i % 5 === 0 ? null : i % 7,
      Stage: ['Lead', 'Won', 'Lost'][i % 3],
      Labels: i % 2 ? ['hot'] : ['cold', 'vip'],
      Due: `2024-03-${String((i % 28) + 1).padStart(2, '0')}`,
    }));
    expect((await call('POST', `/tables/${t.name}/rows/bulk`, { key: t.key, body: { rows } })).status).to.equal(201);
  });

  async function all(body: Record<string, unknown>) {
    const seen: { id: string; data: Record<string, unknown> }[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { agentry: typeof seen; nextCursor: string | null } } = await call('POST', `/tables/${t.name}/rows/list`, {
        key: t.key,
        body: { ...body, limit: 5, ...(cursor ? { cursor } : {}) },
      });
      expect(page.status).to.equal(200);
      expect(page.body.agentry.length).to.be.at.most(5);
      seen.push(...page.body.agentry);
      cursor = page.body.nextCursor;
    } while (cursor);
    return seen;
  }

  it('pages through every matching row exactly once, in sort order, with empty cells last', async () => {
    const rows = await all({ sort: [{ field: 'Seats', direction: 'desc' }] });
    expect(rows).to.have.length(37);
    expect(new Set(rows.map((r) => r.id)).size).to.equal(37);
    const seats = rows.map((r) => r.data.Seats as number | null);
    const firstNull = seats.indexOf(null);
    expect(seats.slice(firstNull).every((s) => s === null)).to.equal(true);
    const numbers = seats.slice(0, firstNull) as number[];
    expect(numbers).to.deep.equal([...numbers].sort((x, y) => y - x));
  });

  it('filters with and/or groups and per-type operators, and counts the same query', async () => {
    const filter = {
      and: [
        { field: 'Stage', operator: 'in', value: ['Won', 'Lost'] },
        {
          or: [
            { field: 'Labels', operator: 'hasAny', value: ['vip'] },
            { field: 'Seats', operator: 'gte', value: 5 },
          ],
        },
      ],
    };
    const rows = await all({ filter });
    expect(rows.length).to.be.greaterThan(0);
    for (const r of rows) {
      expect(['Won', 'Lost']).to.include(r.data.Stage);
      expect((r.data.Labels as string[]).includes('vip') || (r.data.Seats as number) >= 5).to.equal(true);
    }
    const count = await call('POST', `/tables/${t.name}/rows/count`, { key: t.key, body: { filter } });
    expect(count.body.count).to.equal(rows.length);
  });

  it('searches the text fields by word prefix', async () => {
    const rows = await all({ search: 'alph' });
    expect(rows).to.have.length(13);
    expect(rows.every((r) => String(r.data.Title).includes('alpha'))).to.equal(true);
  });

  it('answers 400 naming the problem for a bad filter, sort or cursor', async () => {
    const badField = await call('POST', `/tables/${t.name}/rows/list`, {
      key: t.key,
      body: { filter: { and: [{ field: 'Nope', operator: 'eq', value: 1 }] } },
    });
    expect(badField.status).to.equal(400);
    expect(badField.body.details.issues[0].path).to.match(/^filter\.and\[0\]/);
    const badOperator = await call('POST', `/tables/${t.name}/rows/list`, {
      key: t.key,
      body: { filter: { field: 'Won', operator: 'contains', value: 'x' } },
    });
    expect(badOperator.status).to.equal(400);
    const badSort = await call('POST', `/tables/${t.name}/rows/list`, { key: t.key, body: { sort: [{ field: 'Labels' }] } });
    expect(badSort.status).to.equal(400);
    const badCursor = await call('POST', `/tables/${t.name}/rows/list`, { key: t.key, body: { cursor: 'garbage' } });
    expect(badCursor.status).to.equal(400);
  });
});
