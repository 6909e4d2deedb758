/**
 * `Idempotency-Key` on row writes (POST …/rows and …/rows/bulk): a client that retries a write whose answer it lost
 * gets the first answer again and writes nothing twice; the same key with another body is a conflict; concurrent
 * calls with one key write once; keys are per table, so another table (or account) may use the same key.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { call, newAccount } from '../../setup/http.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

async function contactsTable(a: Account) {
  const name = `contacts_${Math.random().toString(36).slice(2, 8)}`;
  const created = await call('POST', '/tables', { key: a.userKey, body: { name, columns: [{ name: 'Name', type: 'string', required: true }] } });
  expect(created.status, created.text).to.equal(201);
  return name;
}

const count = async (a: Account, table: string) =>
  (await call('POST', `/tables/${table}/rows/count`, { key: a.userKey, body: {} })).body.count as number;

describe('Idempotency-Key on row writes', function () {
  this.timeout(60_000);
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  const post = (table: string, key: string, body: unknown, path = 'rows', account = a) =>
    call('POST', `/tables/${table}/${path}`, { key: account.userKey, body, headers: { 'Idempotency-Key': key } });

  it('answers a repeated write with its first answer and writes the row once; another body is 409 naming the header', async () => {
    const table = await contactsTable(a);
    const key = randomUUID();
    const first = await post(table, key, { Name: 'Ada' });
    expect(first.status, first.text).to.equal(201);
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    const again = await post(table, key, { Name: 'Ada' });
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect(await count(a, table)).to.equal(1);

    const other = await post(table, key, { Name: 'Grace' });
    expect(other.status).to.equal(409);
    expect(other.body.details.issues[0].path).to.equal('headers.Idempotency-Key');
    expect(await count(a, table)).to.equal(1);
    // Without a key, two writes are two rows, as before.
    for (let i = 0; i < 2; i += 1)
      expect((await call('POST', `/tables/${table}/rows`, { key: a.userKey, body: { Name: 'Ada' } })).status).to.equal(201);
    expect(await count(a, table)).to.equal(3);
  });

  it('writes once for concurrent calls with one key, and a bulk write once with all its rows', async () => {
    const table = await contactsTable(a);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(table, key, { Name: 'Linus' })));
    expect(answers.map((r) => r.status)).to.deep.equal(Array(6).fill(201));
    expect(new Set(answers.map((r) => r.body.id)).size).to.equal(1);
    expect(await count(a, table)).to.equal(1);

    const bulkKey = randomUUID();
    const rows = [{ Name: 'Ken' }, { Name: 'Dennis' }];
    const bulk = await post(table, bulkKey, { rows }, 'rows/bulk');
    expect(bulk.status, bulk.text).to.equal(201);
    const replay = await post(table, bulkKey, { rows }, 'rows/bulk');
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body.agentry.map((r: { id: string }) => r.id)).to.deep.equal(bulk.body.agentry.map((r: { id: string }) => r.id));
    expect(await count(a, table)).to.equal(3);
  });

  it('keeps keys per table: the same key writes in another table and in another account', async () => {
    const b = await newAccount();
    const [mine, second, theirs] = [await contactsTable(a), await contactsTable(a), await contactsTable(b)];
    const key = randomUUID();
    for (const [table, account] of [
      [mine, a],
      [second, a],
      [theirs, b],
    ] as const) {
      const res = await post(table, key, { Name: 'Barbara' }, 'rows', account);
      expect([res.status, res.headers.get('idempotent-replayed')], res.text).to.deep.equal([201, null]);
      expect(await count(account, table)).to.equal(1);
    }
  });
});
