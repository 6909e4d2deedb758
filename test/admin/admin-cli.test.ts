import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { admin, adminViaNpm } from '../setup/admin-cli.js';
import { harness } from '../setup/harness.js';
import { call } from '../setup/http.js';

async function storedKeys(accountId: number): Promise<{ prefix: string; key_hash: string; kind: string; revoked: boolean }[]> {
  return harness()
    .orm.em.getConnection()
    .execute('select prefix, key_hash, kind, revoked_at is not null as revoked from api_keys where account_id = ? order by id', [accountId]);
}

describe('admin command line', function () {
  this.timeout(60_000);

  it('bootstrap (through npm run admin) prints exactly one JSON object, and the keys it prints work and are stored only as hashes', async () => {
    const res = await adminViaNpm('bootstrap', '--account', 'Globex', '--email', 'Owner@Globex.test', '--json');
    expect(res.code).to.equal(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).to.have.length(1);
    const out = JSON.parse(lines[0]!);
    expect(Object.keys(out).sort()).to.deep.equal(['account', 'generalKey', 'user', 'userKey']);
    expect(out.account).to.include({ name: 'Globex' });
    expect(out.account.id).to.be.a('number');
    expect(out.account.namespace).to.match(/^globex-/);
    expect(out.user).to.deep.equal({ id: out.user.id, email: 'owner@globex.test' });

    const me = await call('GET', '/me', { key: out.userKey });
    expect(me.status).to.equal(200);
    expect(me.body.data).to.deep.equal({ account: out.account, user: out.user });
    const general = await call('GET', '/me', { key: out.generalKey });
    expect(general.body.data).to.deep.equal({ account: out.account, user: null });

    const rows = await storedKeys(out.account.id);
    expect(rows.map((r) => r.kind)).to.deep.equal(['USER', 'GENERAL']);
    const sha = (k: string) => createHash('sha256').update(k).digest('hex');
    expect(rows.map((r) => r.key_hash)).to.deep.equal([sha(out.userKey), sha(out.generalKey)]);
    const dump = JSON.stringify(await harness().orm.em.getConnection().execute('select * from api_keys'));
    expect(dump).to.not.include(out.userKey);
    expect(dump).to.not.include(out.generalKey);
    expect(rows[0]!.prefix).to.equal(out.userKey.slice(0, rows[0]!.prefix.length));
  });

  it('issues at most 5 live USER keys per user, refusing the 6th with a clear message until one is revoked', async () => {
    const boot = JSON.parse((await admin('bootstrap', '--account', 'Limits', '--email', 'l@limits.test', '--json')).stdout);
    const keys: { id: number; key: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await admin('user-key', '--user', String(boot.user.id), '--json');
      expect(res.code, res.stderr).to.equal(0);
      keys.push(JSON.parse(res.stdout));
    }
    const sixth = await admin('user-key', '--user', String(boot.user.id), '--json');
    expect(sixth.code).to.equal(1);
    expect(sixth.stdout).to.equal('');
    expect(sixth.stderr).to.match(/already holds 5 live USER keys, the maximum; revoke one/);

    // GENERAL keys do not count against the per-user limit.
    expect((await admin('general-key', '--account', String(boot.account.id))).code).to.equal(0);

    const revoked = await admin('revoke-key', '--key', String(keys[0]!.id));
    expect(revoked.code).to.equal(0);
    expect((await call('GET', '/me', { key: keys[0]!.key })).status).to.equal(401);
    const again = await admin('user-key', '--user', String(boot.user.id), '--json');
    expect(again.code).to.equal(0);
    expect((await call('GET', '/me', { key: JSON.parse(again.stdout).key })).status).to.equal(200);
  });

  it('lists keys with prefix, kind, creation and last use, never the key', async () => {
    const boot = JSON.parse((await admin('bootstrap', '--account', 'Listing', '--email', 'x@listing.test', '--json')).stdout);
    await call('GET', '/me', { key: boot.userKey });
    const res = await admin('keys', '--account', String(boot.account.id), '--json');
    expect(res.code).to.equal(0);
    const { keys } = JSON.parse(res.stdout);
    expect(keys).to.have.length(2);
    const user = keys.find((k: { kind: string }) => k.kind === 'USER');
    const general = keys.find((k: { kind: string }) => k.kind === 'GENERAL');
    expect(user).to.include({ userId: boot.user.id, prefix: boot.userKey.slice(0, 12) });
    expect(user.lastUsedAt).to.be.a('string');
    expect(general).to.include({ userId: null, lastUsedAt: null });
    expect(general.createdAt).to.be.a('string');
    expect(res.stdout).to.not.include(boot.userKey);
    expect(res.stdout).to.not.include(boot.generalKey);
    const text = await admin('keys', '--account', String(boot.account.id));
    expect(text.stdout).to.include(boot.userKey.slice(0, 12)).and.not.include(boot.userKey);
  });

  it('creates users in an account and issues them keys that see that account', async () => {
    const boot = JSON.parse((await admin('bootstrap', '--account', 'Team', '--email', 'a@team.test', '--json')).stdout);
    const created = await admin('create-user', '--account', String(boot.account.id), '--email', 'b@team.test', '--json');
    expect(created.code).to.equal(0);
    const { user } = JSON.parse(created.stdout);
    const key = JSON.parse((await admin('user-key', '--user', String(user.id), '--json')).stdout);
    const me = await call('GET', '/me', { key: key.key });
    expect(me.body.data.user).to.deep.equal({ id: user.id, email: 'b@team.test' });
    expect(me.body.data.account.id).to.equal(boot.account.id);
    const duplicate = await admin('create-user', '--account', String(boot.account.id), '--email', 'B@team.test');
    expect(duplicate.code).to.equal(1);
    expect(duplicate.stderr).to.match(/already has a user with email b@team\.test/);
  });

  it('refuses bad input with a message and a non-zero exit', async () => {
    const cases: [string[], number, RegExp][] = [
      [['bootstrap', '--account', 'X'], 2, /--email is required/],
      [['bootstrap', '--account', 'X', '--email', 'not-an-email'], 1, /Invalid email/],
      [['user-key', '--user', 'abc'], 2, /--user must be a positive integer/],
      [['user-key', '--user', '999999'], 1, /User 999999 not found/],
      [['revoke-key', '--key', 'agy_usr_nope'], 1, /No live key matches/],
      [['frobnicate'], 2, /unknown verb "frobnicate"/],
    ];
    for (const [args, code, message] of cases) {
      const res = await admin(...args);
      expect(res.code, args.join(' ')).to.equal(code);
      expect(res.stderr, args.join(' ')).to.match(message);
    }
  });
});
