/**
 * Concurrent metadata writes of Objects and Tables: record types, views, options and fields created or changed by 8
 * writers at once keep distinct positions and every change. Before the schema lock, positions repeated
 * (0,1,1,1,1,1,1,1,2) and two concurrent default record types answered one 409.
 */
import { expect } from 'chai';
import { account, client, fieldNamed, ok, type Client } from '../data/tables.helpers.js';
import { allAtOnce, range, read } from './parallel-writes.helpers.js';

describe('concurrent writes: Objects and Tables metadata', () => {
  let key: string;
  let api: Client;
  const O = '/objects/companies';
  before(async () => {
    ({ key } = await account());
    api = client(key);
    ok(await api.get('/objects')); // seeds the standard Objects
  });

  const orders = (list: { order: number }[]) => list.map((x) => x.order).sort((x, y) => x - y);

  it('gives 8 record types created at once 8 distinct positions; two concurrent defaults leave the later one default', async () => {
    const before = (await read(key, `${O}/record-types`)).agentry.length;
    await allAtOnce(
      key,
      range(8).map((i) => ({ method: 'POST', path: `${O}/record-types`, body: { name: `Kind ${i}` } })),
    );
    const list = (await read(key, `${O}/record-types?limit=100`)).agentry;
    expect(orders(list)).to.deep.equal(range(before + 8));
    const [x, y] = await allAtOnce(key, [
      { method: 'POST', path: `${O}/record-types`, body: { name: 'Default A', isDefault: true } },
      { method: 'POST', path: `${O}/record-types`, body: { name: 'Default B', isDefault: true } },
    ]);
    const defaults = (await read(key, `${O}/record-types?limit=100`)).agentry.filter((rt: { isDefault: boolean }) => rt.isDefault);
    expect(defaults).to.have.length(1);
    expect([x!.body.id, y!.body.id]).to.include(defaults[0].id);
  });

  it('gives 8 views created at once 8 distinct positions, and keeps 8 concurrent changes of different views', async () => {
    const created = await allAtOnce(
      key,
      range(8).map((i) => ({ method: 'POST', path: `${O}/views`, body: { name: `View ${i}` } })),
    );
    expect(orders((await read(key, `${O}/views?limit=100`)).agentry)).to.deep.equal(range(8));
    await allAtOnce(
      key,
      created.map((res, i) => ({ method: 'PATCH', path: `${O}/views/${res.body.id}`, body: { name: `Renamed ${i}` } })),
    );
    const names = (await read(key, `${O}/views?limit=100`)).agentry.map((v: { name: string }) => v.name);
    expect(names.sort()).to.deep.equal(range(8).map((i) => `Renamed ${i}`));
  });

  it('gives 8 options created at once 8 distinct positions, and keeps concurrent patches of different fields', async () => {
    const table = ok(await api.post('/tables', { name: 'tickets', columns: [{ name: 'Title', type: 'string' }] }), 201);
    const T = `/tables/${table.name}`;
    const field = ok(await api.post(`${T}/fields`, { name: 'Label', type: 'select' }), 201);
    await allAtOnce(
      key,
      range(8).map((i) => ({ method: 'POST', path: `${T}/fields/${field.id}/tags`, body: { name: `tag ${i}` } })),
    );
    expect(orders((await read(key, `${T}/fields/${field.id}/tags?limit=100`)).agentry)).to.deep.equal(range(8));
    const fields = await allAtOnce(
      key,
      range(8).map((i) => ({ method: 'POST', path: `${T}/fields`, body: { name: `Note ${i}`, type: 'string' } })),
    );
    await allAtOnce(
      key,
      fields.map((res, i) => ({ method: 'PATCH', path: `${T}/fields/${res.body.id}`, body: { name: `Comment ${i}` } })),
    );
    for (const i of range(8)) expect((await fieldNamed(api, T, `Comment ${i}`)).id).to.equal(fields[i]!.body.id);
  });
});
