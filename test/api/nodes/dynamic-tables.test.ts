import { ApplicationFailure } from '@temporalio/common';
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { harness, projectRoot } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { executeNodeAttempt } from '../../setup/node-executions.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

/** Row events written for a table (each would start a downstream run). */
async function rowEvents(tableId: number): Promise<string[]> {
  const rows = (
    await harness()
      .orm.em.getKnex()
      .raw(`select type from outbox_events where payload->>'tableId' = ? order by id`, [String(tableId)])
  ).rows;
  return rows.map((r: { type: string }) => r.type);
}

async function leadsTable(a: Account): Promise<number> {
  const key = a.userKey;
  await call('POST', '/tables', {
    key,
    body: {
      name: 'leads',
      columns: [
        { name: 'Name', type: 'string' },
        { name: 'Qty', type: 'number' },
        { name: 'Vip', type: 'boolean' },
      ],
    },
  });
  return (await call('GET', '/tables/leads', { key })).body.id;
}

describe('DYNAMIC_TABLES nodes run once per node execution', function () {
  this.timeout(30_000);

  it('a retried CREATE, UPDATE or DELETE answers what its first attempt did and writes one row event', async () => {
    const a = await newAccount();
    const tableId = await leadsTable(a);
    const run = (data: Record<string, unknown>, executionKey: string, attempt = 1) =>
      executeNodeAttempt({ accountId: a.account.id, type: 'DYNAMIC_TABLES', data: { tableId, ...data }, executionKey }, attempt);

    const first = (await run({ action: 'CREATE', rowData: { Name: 'Ada' } }, 'create#1')).output as { id: string };
    expect((await run({ action: 'CREATE', rowData: { Name: 'Ada' } }, 'create#1', 2)).output).to.deep.equal(first);
    const other = (await run({ action: 'CREATE', rowData: { Name: 'Ada' } }, 'create#2')).output as { id: string };
    expect(other.id).to.not.equal(first.id);
    const rows = (await call('POST', '/tables/leads/rows/list', { key: a.userKey, body: {} })).body.agentry;
    expect(rows.map((r: { id: string }) => r.id).sort()).to.deep.equal([first.id, other.id].sort());

    const update = { action: 'UPDATE', rowId: first.id, rowData: { Name: 'Ada L.' } };
    const updated = (await run(update, 'update#3')).output;
    expect((await run(update, 'update#3', 2)).output).to.deep.equal(updated);

    const remove = { action: 'DELETE', rowId: first.id };
    expect((await run(remove, 'delete#4')).output).to.deep.equal({ deleted: first.id });
    expect((await run(remove, 'delete#4', 2)).output).to.deep.equal({ deleted: first.id });
    expect(await rowEvents(tableId)).to.deep.equal(['TABLE_ROW_CREATED', 'TABLE_ROW_CREATED', 'TABLE_ROW_UPDATED']);

    const missing = await run(remove, 'delete#5').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(missing).to.be.instanceOf(ApplicationFailure);
    expect((missing as ApplicationFailure).nonRetryable).to.equal(true);
    expect((missing as Error).message).to.match(/not found/);
  });

  it('writes a value made of one variable with its JSON type, and converts captured text to the field type', async () => {
    const a = await newAccount();
    const tableId = await leadsTable(a);
    const run = (rowData: Record<string, unknown>, executionKey: string) =>
      executeNodeAttempt({ accountId: a.account.id, type: 'DYNAMIC_TABLES', data: { tableId, action: 'CREATE', rowData }, executionKey });
    expect(((await run({ Name: 'n', Qty: 42, Vip: true }, 'typed#1')).output as { data: unknown }).data).to.deep.include({ Qty: 42, Vip: true });
    expect(((await run({ Name: 'n', Qty: '42.5', Vip: 'false' }, 'typed#2')).output as { data: unknown }).data).to.deep.include({
      Qty: 42.5,
      Vip: false,
    });
    const refused = await run({ Qty: 'forty' }, 'typed#3').then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused?.message).to.match(/Qty/);
  });

  it('creates a row of a table it has read in one statement, and never against a schema or name that changed since', async () => {
    const a = await newAccount();
    const tableId = await leadsTable(a);
    const knex = harness().orm.em.getKnex();
    const create = (rowData: Record<string, unknown>, executionKey: string) =>
      executeNodeAttempt({ accountId: a.account.id, type: 'DYNAMIC_TABLES', data: { tableId, action: 'CREATE', rowData }, executionKey });
    // The first create reads the table (the general path: a transaction of five round trips and more); the next
    // one writes in one statement.
    await create({ Name: 'one' }, 'quick#1');
    // The statements of this create: every path of it reads or writes the table's metadata, its rows or the node's
    // effect; the test process's own workers poll other tables meanwhile.
    const statements: string[] = [];
    const count = (query: { sql: string }) => /data_tables|data_fields|"data"\.|node_effects/.test(query.sql) && statements.push(query.sql);
    knex.on('query', count);
    try {
      await create({ Name: 'two' }, 'quick#2');
    } finally {
      knex.off('query', count);
    }
    expect(statements, statements.join('\n')).to.have.length(1);
    expect(statements[0]).to.match(/insert into node_effects/);

    // Another process renames the table and adds a required field: the next create sees both.
    await knex.raw(`update data_tables set name = 'prospects' where id = ?`, [tableId]);
    const renamed = (await create({ Name: 'three' }, 'quick#3')).output as { id: string };
    const [event] = (await knex.raw(`select payload from outbox_events where payload->>'rowId' = ?`, [renamed.id])).rows;
    expect(event.payload.tableName).to.equal('prospects');
    await knex.raw(`update data_tables set name = 'leads' where id = ?`, [tableId]);
    await call('POST', '/tables/leads/fields', { key: a.userKey, body: { name: 'Region', type: 'string', required: true } });
    await knex.raw(`update data_tables set schema_version = schema_version + 1 where id = ?`, [tableId]);
    const refused = await create({ Name: 'four' }, 'quick#4').then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused?.message).to.match(/Region/);
    const rows = (await call('POST', '/tables/leads/rows/list', { key: a.userKey, body: {} })).body.agentry;
    expect(rows.map((r: { data: { Name: string } }) => r.data.Name).sort()).to.deep.equal(['one', 'three', 'two']);
  });

  it('two attempts of one create at once write one row and one event, and both answer it', async () => {
    const a = await newAccount();
    const tableId = await leadsTable(a);
    const create = (executionKey: string, attempt: number) =>
      executeNodeAttempt(
        { accountId: a.account.id, type: 'DYNAMIC_TABLES', data: { tableId, action: 'CREATE', rowData: { Name: 'x' } }, executionKey },
        attempt,
      );
    await create('warm#1', 1);
    const [first, second] = await Promise.all([create('race#1', 1), create('race#1', 2)]);
    expect(second.output).to.deep.equal(first.output);
    const rows = (await call('POST', '/tables/leads/rows/list', { key: a.userKey, body: {} })).body.agentry;
    expect(rows).to.have.length(2);
    expect(await rowEvents(tableId)).to.deep.equal(['TABLE_ROW_CREATED', 'TABLE_ROW_CREATED']);
  });
});

describe('DYNAMIC_TABLES DELETE and record files', function () {
  this.timeout(30_000);

  it("removes the bytes of the deleted record's files, also when the deletion is retried", async () => {
    const a = await newAccount();
    const person = (await call('POST', '/objects/people/rows', { key: a.userKey, body: { 'First name': 'Ada' } })).body.id as string;
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array([1, 2, 3])], { type: 'application/octet-stream' }), 'notes.bin');
    const uploaded = await fetch(`${harness().baseUrl}/objects/people/rows/${person}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.userKey}` },
      body: form,
    });
    expect(uploaded.status).to.equal(201);
    const knex = harness().orm.em.getKnex();
    const [{ storage_key: key }] = (await knex.raw('select storage_key from record_files where row_id = ?', [person])).rows;
    const stored = join(projectRoot, '.data/files', key);
    expect(existsSync(stored)).to.equal(true);
    const people = (await call('GET', '/objects/people', { key: a.userKey })).body.id;
    const remove = { tableId: people, action: 'DELETE', rowId: person };
    await executeNodeAttempt({ accountId: a.account.id, type: 'DYNAMIC_TABLES', data: remove, executionKey: `files#${person}` });
    expect(existsSync(stored)).to.equal(false);
    expect(
      (await executeNodeAttempt({ accountId: a.account.id, type: 'DYNAMIC_TABLES', data: remove, executionKey: `files#${person}` }, 2)).output,
    ).to.deep.equal({ deleted: person });
  });
});
