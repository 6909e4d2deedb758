import { expect } from 'chai';
import { hashKey } from '../../db/accounts/api-keys.service.js';
import { KeyCache } from '../../db/accounts/key-cache.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { waitUntil } from '../setup/runs.js';

describe('verified API keys kept in memory', () => {
  let cache: KeyCache<{ n: number }>;
  let loads = 0;
  const load = async () => ({ n: ++loads });

  beforeEach(async () => {
    cache = new KeyCache(harness().databaseUrl);
    await waitUntil(async () => cache.active, Boolean, 'the cache to listen');
  });
  afterEach(() => cache.close());

  it('looks a key up once, and again after any key, account or user changes', async () => {
    const { account } = await newAccount();
    const knex = harness().orm.em.getKnex();
    const before = loads;
    expect(await cache.lookup('a', load)).to.deep.equal({ n: before + 1 });
    expect(await cache.lookup('a', load), 'kept').to.deep.equal({ n: before + 1 });

    await knex.raw(`update api_keys set last_used_at = now() where account_id = ?`, [account.id]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await cache.lookup('a', load), 'a write of last_used_at changes nothing').to.deep.equal({ n: before + 1 });

    for (const change of [
      `update api_keys set revoked_at = now() where account_id = ? and kind = 'GENERAL'`,
      `update accounts set name = name || '!' where id = ?`,
      `update users set email = 'x' || email where account_id = ?`,
    ]) {
      const kept = (await cache.lookup('a', load))!.n;
      await knex.raw(change, [account.id]);
      await waitUntil(
        () => cache.lookup('a', load),
        (row) => row!.n > kept,
        `a lookup after: ${change}`,
      );
    }
  });

  it('keeps nothing while it does not listen, and listens again on its own', async () => {
    const knex = harness().orm.em.getKnex();
    await cache.lookup('b', load);
    await knex.raw(`select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen api_identities' and datname = current_database()`);
    await waitUntil(async () => !cache.active, Boolean, 'the cache to see its connection gone');
    const first = (await cache.lookup('b', load))!.n;
    expect((await cache.lookup('b', load))!.n, 'not kept while deaf').to.equal(first + 1);
    await waitUntil(async () => cache.active, Boolean, 'the cache to listen again');
    const kept = (await cache.lookup('b', load))!.n;
    expect((await cache.lookup('b', load))!.n).to.equal(kept);
  });

  it('refuses a key revoked by hand in SQL on the next request, however warm', async () => {
    const acct = await newAccount();
    for (let i = 0; i < 3; i += 1) expect((await call('GET', '/me', { key: acct.userKey })).status).to.equal(200);
    await harness()
      .orm.em.getKnex()
      .raw(`update api_keys set revoked_at = now() where key_hash = ?`, [hashKey(acct.userKey)]);
    const res = await call('GET', '/me', { key: acct.userKey });
    expect(res.status).to.equal(401);
    expect((await call('GET', '/me', { key: acct.generalKey })).status).to.equal(200);
  });
});
