import { expect } from 'chai';
import { account, addField, client, expectError, expectIssue, fieldNamed, ok, type Client } from './tables.helpers.js';

/** Saved views of Objects, also scoped to a record type. */
describe('Views', () => {
  let api: Client;
  let general: Client;
  const D = '/objects/deals';
  let amount: any;
  let name: any;

  before(async () => {
    const a = await account();
    api = client(a.key);
    general = client(a.general);
    amount = await fieldNamed(api, D, 'Amount');
    name = await fieldNamed(api, D, 'Name');
  });

  const viewNames = async (path = `${D}/views`) => ok(await api.get(path)).agentry.map((v: any) => v.name);

  it('creates a view with filter, sort and visible fields, and lists it', async () => {
    const body = {
      name: 'Big open deals',
      filter: {
        and: [
          { field: 'Amount', operator: 'gte', value: 1000 },
          { field: 'Stage', operator: 'in', value: ['Lead', 'Qualified'] },
        ],
      },
      sort: [{ field: 'Amount', direction: 'desc' }],
      visibleFieldIds: [name.id, amount.id],
    };
    const view = ok(await api.post(`${D}/views`, body), 201);
    // Field names are stored as field ids, so renaming a field keeps the view working.
    const stage = await fieldNamed(api, D, 'Stage');
    expect(view).to.deep.include({
      ...body,
      filter: {
        and: [
          { field: amount.id, operator: 'gte', value: 1000 },
          { field: stage.id, operator: 'in', value: ['Lead', 'Qualified'] },
        ],
      },
      sort: [{ field: amount.id, direction: 'desc' }],
      recordTypeId: null,
    });
    expect(view.id).to.be.a('number');
    const listed = ok(await general.get(`${D}/views`));
    expect(listed.agentry.map((v: any) => v.id)).to.deep.equal([view.id]);
    expect(listed.nextCursor).to.equal(null);
    expect(ok(await api.get(D)).views.map((v: any) => v.id)).to.deep.equal([view.id]);
    const minimal = ok(await api.post(`${D}/views`, { name: 'Everything' }), 201);
    expect(minimal).to.deep.include({ filter: null, sort: [], visibleFieldIds: [] });
    expectError(await general.post(`${D}/views`, { name: 'Machine' }), 403, 'forbidden');
  });

  it('refuses an invalid filter with an issue path under filter, and saves nothing', async () => {
    const before = await viewNames();
    const unknownField = expectIssue(
      await api.post(`${D}/views`, { name: 'Bad', filter: { field: 'Colour', operator: 'eq', value: 'red' } }),
      /^(body\.)?filter\.field$/,
    );
    expect(unknownField.message).to.include('Colour');
    expectIssue(await api.post(`${D}/views`, { name: 'Bad', filter: { field: 'Name', operator: 'gte', value: 'x' } }), /^(body\.)?filter\.operator$/);
    expectIssue(
      await api.post(`${D}/views`, { name: 'Bad', filter: { and: [{ field: 'Amount', operator: 'gt', value: 'lots' }] } }),
      /^(body\.)?filter\.and\[0\]\.value/,
    );
    expectIssue(await api.post(`${D}/views`, { name: 'Bad', filter: { field: 'Amount', operator: 'sometimes', value: 1 } }), /^(body\.)?filter/);
    expectIssue(await api.post(`${D}/views`, { name: 'Bad', sort: [{ field: 'Nope' }] }), /^(body\.)?sort\[0\]\.field$/);
    expectIssue(await api.post(`${D}/views`, { name: 'Bad', visibleFieldIds: [999_999] }), 'visibleFieldIds', 'not_found');
    const people = await fieldNamed(api, '/objects/people', 'Email');
    expectIssue(await api.post(`${D}/views`, { name: 'Bad', visibleFieldIds: [people.id] }), 'visibleFieldIds', 'not_found');
    expectIssue(await api.post(`${D}/views`, { name: 'Bad', columns: [] }), 'columns', 'unknown_field');
    expect(await viewNames()).to.deep.equal(before);
  });

  it('patches a view; an invalid patch changes nothing', async () => {
    const view = ok(await api.post(`${D}/views`, { name: 'Mine', filter: { field: 'Amount', operator: 'gt', value: 0 } }), 201);
    const patched = ok(await api.patch(`${D}/views/${view.id}`, { name: 'Mine, sorted', sort: [{ field: 'Name' }], visibleFieldIds: [amount.id] }));
    expect(patched).to.deep.include({ name: 'Mine, sorted', filter: { field: amount.id, operator: 'gt', value: 0 }, visibleFieldIds: [amount.id] });
    expect(patched.sort).to.deep.equal([{ field: name.id, direction: 'asc' }]);
    ok(await api.patch(`${D}/views/${view.id}`, { filter: null }));
    expectIssue(
      await api.patch(`${D}/views/${view.id}`, { name: 'Broken', filter: { field: 'Ghost', operator: 'eq', value: 1 } }),
      /^(body\.)?filter\.field$/,
    );
    const stored = ok(await api.get(`${D}/views`)).agentry.find((v: any) => v.id === view.id);
    expect(stored).to.deep.include({ name: 'Mine, sorted', filter: null, visibleFieldIds: [amount.id] });
  });

  it('deletes a view', async () => {
    const view = ok(await api.post(`${D}/views`, { name: 'Short-lived' }), 201);
    expect((await api.del(`${D}/views/${view.id}`)).status).to.equal(204);
    expect(await viewNames()).to.not.include('Short-lived');
    expectError(await api.del(`${D}/views/${view.id}`), 404, 'not_found');
    expectError(await api.patch(`${D}/views/${view.id}`, { name: 'Back' }), 404, 'not_found');
  });

  it('drops a deleted field from the visible fields, filter and sort of views, and survives renames', async () => {
    const extra = await addField(api, D, { name: 'Probability', type: 'number', metadata: { format: 'percent' } });
    const view = ok(
      await api.post(`${D}/views`, {
        name: 'With probability',
        visibleFieldIds: [name.id, extra.id],
        filter: {
          or: [
            { field: 'Probability', operator: 'gt', value: 50 },
            { field: 'Name', operator: 'isNotEmpty' },
          ],
        },
        sort: [{ field: 'Probability', direction: 'desc' }, { field: 'Name' }],
      }),
      201,
    );
    expect((await api.patch(`${D}/fields/${extra.id}`, { name: 'Likelihood' })).status).to.equal(200);
    const renamed = ok(await api.get(`${D}/views`)).agentry.find((v: any) => v.id === view.id);
    expect(renamed.filter.or[0]).to.deep.equal({ field: extra.id, operator: 'gt', value: 50 });
    expect((await api.del(`${D}/fields/${extra.id}`)).status).to.equal(204);
    const stored = ok(await api.get(`${D}/views`)).agentry.find((v: any) => v.id === view.id);
    expect(stored.visibleFieldIds).to.deep.equal([name.id]);
    expect(stored.filter).to.deep.equal({ or: [{ field: name.id, operator: 'isNotEmpty' }] });
    expect(stored.sort).to.deep.equal([{ field: name.id, direction: 'asc' }]);
  });

  it('scopes views to a record type through /objects/record-types/{id}/views', async () => {
    const enterprise = ok(await api.post(`${D}/record-types`, { name: 'Enterprise' }), 201);
    const R = `/objects/record-types/${enterprise.id}/views`;
    const view = ok(await api.post(R, { name: 'Enterprise pipeline', filter: { field: 'Amount', operator: 'gte', value: 50_000 } }), 201);
    expect(view.recordTypeId).to.equal(enterprise.id);
    expect(ok(await api.get(D)).views.find((v: any) => v.id === view.id).recordTypeId).to.equal(enterprise.id);
    expectIssue(await api.post(R, { name: 'Bad', filter: { field: 'Nope', operator: 'eq', value: 1 } }), /^(body\.)?filter\.field$/);
    expect(ok(await api.patch(`${R}/${view.id}`, { name: 'Enterprise deals' })).name).to.equal('Enterprise deals');
    expectError(await general.patch(`${R}/${view.id}`, { name: 'Machine' }), 403, 'forbidden');

    const plain = ok(await api.post(`${D}/views`, { name: 'Unscoped' }), 201);
    expectError(await api.patch(`${R}/${plain.id}`, { name: 'Hijack' }), 404, 'not_found');
    expectError(await api.del(`${R}/${plain.id}`), 404, 'not_found');
    const other = ok(await api.post(`${D}/record-types`, { name: 'SMB' }), 201);
    expectError(await api.patch(`/objects/record-types/${other.id}/views/${view.id}`, { name: 'Moved' }), 404, 'not_found');

    expect((await api.del(`${R}/${view.id}`)).status).to.equal(204);
    expect(await viewNames()).to.not.include('Enterprise deals');
    expect(await viewNames()).to.include('Unscoped');
  });

  it('answers 404 for a record type or view of another account, and changes nothing', async () => {
    const [defaultRt] = ok(await api.get(`${D}/record-types`)).agentry;
    const mine = ok(await api.post(`/objects/record-types/${defaultRt.id}/views`, { name: 'Default pipeline' }), 201);
    const stranger = client((await account()).key);
    expectError(await stranger.post(`/objects/record-types/${defaultRt.id}/views`, { name: 'Intruder' }), 404, 'not_found');
    expectError(await stranger.patch(`/objects/record-types/${defaultRt.id}/views/${mine.id}`, { name: 'Intruder' }), 404, 'not_found');
    expectError(await stranger.del(`/objects/record-types/${defaultRt.id}/views/${mine.id}`), 404, 'not_found');
    expectError(await stranger.patch(`${D}/views/${mine.id}`, { name: 'Intruder' }), 404, 'not_found');
    expectError(await stranger.del(`${D}/views/${mine.id}`), 404, 'not_found');
    expectError(await api.post('/objects/record-types/999999/views', { name: 'Nowhere' }), 404, 'not_found');
    expect(ok(await stranger.get(`${D}/views`)).agentry).to.deep.equal([]);
    expect(await viewNames()).to.include('Default pipeline');
    expect(await viewNames()).to.not.include('Intruder');
  });

  it('orders views with order, shifting the others', async () => {
    const b = client((await account()).key);
    const ids: number[] = [];
    for (const n of ['A', 'B', 'C']) ids.push(ok(await b.post(`${D}/views`, { name: n }), 201).id);
    ok(await b.patch(`${D}/views/${ids[2]}`, { order: 0 }));
    const list = ok(await b.get(`${D}/views`)).agentry;
    expect(list.map((v: any) => v.name)).to.deep.equal(['C', 'A', 'B']);
    expect(list.map((v: any) => v.order)).to.deep.equal([0, 1, 2]);
  });
});
