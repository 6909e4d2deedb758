import { expect } from 'chai';
import { ApiKey } from '../../db/accounts/api-key.entity.js';
import { revokeKey } from '../../db/accounts/api-keys.service.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';

describe('GET /public/v1/me', () => {
  it('returns the account and the user of a USER key', async () => {
    const acct = await newAccount('Acme Robotics');
    const res = await call('GET', '/me', { key: acct.userKey });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      ok: true,
      data: {
        account: { id: acct.account.id, name: 'Acme Robotics', namespace: acct.account.namespace },
        user: { id: acct.user.id, email: acct.user.email },
      },
    });
    expect(acct.account.namespace).to.match(/^acme-robotics-[0-9a-f]{6}$/);
  });

  it('returns user null for a GENERAL key', async () => {
    const acct = await newAccount();
    const res = await call('GET', '/me', { key: acct.generalKey });
    expect(res.status).to.equal(200);
    expect(res.body.data.account.id).to.equal(acct.account.id);
    expect(res.body.data.user).to.equal(null);
  });

  it('keeps accounts apart: each key sees only its own account', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const [ra, rb] = await Promise.all([call('GET', '/me', { key: a.userKey }), call('GET', '/me', { key: b.generalKey })]);
    expect(ra.body.data.account.id).to.equal(a.account.id);
    expect(rb.body.data.account.id).to.equal(b.account.id);
    expect(a.account.id).to.not.equal(b.account.id);
  });

  const unauthorized: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['a non-Bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty Bearer token', { authorization: 'Bearer ' }],
    ['a malformed key', { authorization: 'Bearer not-a-key' }],
    ['an unknown well-formed key', { authorization: `Bearer agy_usr_${'A'.repeat(43)}` }],
  ];
  for (const [label, headers] of unauthorized) {
    it(`answers 401 { message } for ${label}`, async () => {
      const res = await call('GET', '/me', { headers });
      expect(res.status).to.equal(401);
      expect(res.body.code).to.equal('unauthorized');
      expect(res.body.message).to.be.a('string').and.not.equal('');
      expect(res.headers.get('www-authenticate')).to.equal('Bearer');
    });
  }

  it('answers 401 once a key is revoked, and the other keys keep working', async () => {
    const acct = await newAccount();
    const em = harness().orm.em.fork();
    const stored = await em.findOneOrFail(ApiKey, { account: acct.account.id, kind: 'USER' });
    expect((await call('GET', '/me', { key: acct.userKey })).status).to.equal(200);
    await revokeKey(em, stored.id);
    const res = await call('GET', '/me', { key: acct.userKey });
    expect(res.status).to.equal(401);
    expect(res.body.message).to.match(/revoked/);
    expect((await call('GET', '/me', { key: acct.generalKey })).status).to.equal(200);
  });

  it('records when a key was last used', async () => {
    const acct = await newAccount();
    await call('GET', '/me', { key: acct.generalKey });
    const stored = await harness().orm.em.fork().findOneOrFail(ApiKey, { account: acct.account.id, kind: 'GENERAL' });
    expect(stored.lastUsedAt).to.be.instanceOf(Date);
  });
});
