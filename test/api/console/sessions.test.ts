/**
 * People sign in (issue 46): email and password, a session in an HttpOnly cookie that authenticates every route as
 * the user, a CSRF token on every write the cookie authenticates, sign-out; passwords stored only as scrypt hashes.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { createUser } from '../../../db/accounts/accounts.service.js';
import { setUserPassword } from '../../../db/accounts/passwords.service.js';
import { admin, adminViaNpm } from '../../setup/admin-cli.js';
import { harness } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { accountWithPassword, asBrowser, PASSWORD, postSession, sessionSetCookie, signIn } from './sessions.helpers.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sql = <T>(query: string, params: unknown[] = []) => harness().orm.em.getConnection().execute<T[]>(query, params);

describe('people sign in (sessions)', function () {
  this.timeout(30_000);

  it('signs in: 201 with the session, its CSRF token and an HttpOnly, SameSite=Lax cookie that opens GET /sessions/current and GET /me', async () => {
    const a = await accountWithPassword();
    const res = await postSession({ email: a.user.email.toUpperCase(), password: PASSWORD }, { headers: { 'user-agent': 'Test browser 1.0' } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.user).to.deep.equal({ id: a.user.id, email: a.user.email, name: a.user.email.split('@')[0], accountId: a.account.id });
    expect(res.body.csrfToken).to.match(/^[A-Za-z0-9_-]{43}$/);
    const ttl = Date.parse(res.body.expiresAt) - Date.now();
    expect(ttl).to.be.within(12 * 3600_000 - 60_000, 12 * 3600_000);
    const cookie = sessionSetCookie(res)!;
    expect(cookie).to.match(/^agentry_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    expect(res.headers.get('cache-control')).to.equal('no-store');

    const browser = { cookie: cookie.split(';')[0]!, csrfToken: res.body.csrfToken, sessionId: res.body.id };
    const current = await asBrowser(browser, 'GET', '/sessions/current', { csrf: false });
    expect(current.status).to.equal(200);
    expect(current.body).to.deep.equal(res.body);
    const me = await asBrowser(browser, 'GET', '/me', { csrf: false });
    expect(me.status).to.equal(200);
    expect(me.body.data).to.deep.equal({ account: a.account, user: a.user });

    const [row] = await sql<{ address: string; user_agent: string; account_id: number }>(
      'select address, user_agent, account_id from user_sessions where id = ?',
      [res.body.id],
    );
    expect(row).to.deep.equal({ address: '127.0.0.1', user_agent: 'Test browser 1.0', account_id: a.account.id });
  });

  it('answers an unknown email and a wrong password identically: 401 invalid_credentials, no cookie', async () => {
    const a = await accountWithPassword();
    const wrong = await postSession({ email: a.user.email, password: 'not the password' });
    const unknown = await postSession({ email: `nobody-${Date.now()}@example.test`, password: 'not the password' });
    const noPassword = await postSession({ email: (await newAccount()).user.email, password: PASSWORD });
    for (const res of [wrong, unknown, noPassword]) {
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.equal({ code: 'invalid_credentials', message: 'Wrong email or password' });
      expect(sessionSetCookie(res)).to.equal(undefined);
    }
    expect(wrong.text).to.equal(unknown.text);
  });

  it('signs in the user whose password it is when the email is in several accounts; accountId narrows to one', async () => {
    const [a, b] = [await accountWithPassword(), await accountWithPassword()];
    const email = `shared-${Date.now()}@example.test`;
    const inA = await createUser(harness().orm.em.fork(), a.account.id, email);
    const inB = await createUser(harness().orm.em.fork(), b.account.id, email);
    await setUserPassword(harness().orm.em.fork(), inA.id, 'password of a');
    await setUserPassword(harness().orm.em.fork(), inB.id, 'password of b');
    expect((await postSession({ email, password: 'password of b' })).body.user).to.include({ id: inB.id, accountId: b.account.id });
    expect((await postSession({ email, password: 'password of a' })).body.user).to.include({ id: inA.id, accountId: a.account.id });
    expect((await postSession({ email, password: 'password of a', accountId: b.account.id })).status).to.equal(401);

    await setUserPassword(harness().orm.em.fork(), inB.id, 'password of a');
    expect((await postSession({ email, password: 'password of a' })).body.user.id, 'the first by id').to.equal(inA.id);
    expect((await postSession({ email, password: 'password of a', accountId: b.account.id })).body.user.id).to.equal(inB.id);
  });

  it('refuses a write the cookie authenticates without the session CSRF token (403), and accepts it with the token', async () => {
    const a = await accountWithPassword();
    const browser = await signIn(a.user.email);
    const without = await asBrowser(browser, 'POST', '/agents', { body: { name: 'No token' }, csrf: false });
    expect(without.status).to.equal(403);
    expect(without.body.code).to.equal('csrf_token_invalid');
    const wrong = await asBrowser(browser, 'POST', '/agents', {
      body: { name: 'Wrong token' },
      csrf: browser.csrfToken.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
    });
    expect(wrong.status).to.equal(403);
    expect(wrong.body.code).to.equal('csrf_token_invalid');
    const agents = await call('GET', '/agents', { key: a.userKey });
    expect(agents.body.agentry).to.have.length(0);

    const created = await asBrowser(browser, 'POST', '/agents', { body: { name: 'With token' } });
    expect(created.status, created.text).to.equal(201);
    const listed = await asBrowser(browser, 'GET', '/agents', { csrf: false });
    expect(listed.body.agentry.map((agent: { name: string }) => agent.name)).to.deep.equal(['With token']);
  });

  it('takes the Authorization header over the cookie, so API clients never need a CSRF token', async () => {
    const a = await accountWithPassword();
    const b = await accountWithPassword();
    const browser = await signIn(a.user.email);
    const res = await call('POST', '/agents', { key: b.userKey, body: { name: 'By key' }, headers: { cookie: browser.cookie } });
    expect(res.status).to.equal(201);
    expect((await call('GET', '/agents', { key: b.userKey })).body.agentry).to.have.length(1);
    expect((await call('GET', '/agents', { key: a.userKey })).body.agentry).to.have.length(0);
  });

  it('signs out: DELETE /sessions/current clears the cookie; the old cookie then answers 401 and is cleared again', async () => {
    const a = await accountWithPassword();
    const browser = await signIn(a.user.email);
    expect((await asBrowser(browser, 'DELETE', '/sessions/current', { csrf: false })).status).to.equal(403);
    const out = await asBrowser(browser, 'DELETE', '/sessions/current');
    expect(out.status).to.equal(204);
    expect(sessionSetCookie(out)).to.equal('agentry_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
    for (const path of ['/me', '/sessions/current']) {
      const res = await asBrowser(browser, 'GET', path, { csrf: false });
      expect(res.status).to.equal(401);
      expect(sessionSetCookie(res)).to.equal('agentry_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
    }
    expect((await call('GET', '/me', { headers: { cookie: 'agentry_session=not-a-token' } })).status).to.equal(401);
    expect((await call('GET', '/sessions/current', { key: a.userKey })).status).to.equal(401);
  });

  it('stores passwords only as scrypt hashes and session tokens only as SHA-256 hashes', async () => {
    const a = await accountWithPassword();
    const res = await postSession({ email: a.user.email, password: PASSWORD });
    const token = sessionSetCookie(res)!.split(';')[0]!.split('=')[1]!;
    const [user] = await sql<{ password_hash: string }>('select password_hash from users where id = ?', [a.user.id]);
    expect(user!.password_hash).to.match(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    const [session] = await sql<{ token_hash: string }>('select token_hash from user_sessions where id = ?', [res.body.id]);
    expect(session!.token_hash).to.equal(sha256(token));
    const dump = JSON.stringify([await sql('select * from users'), await sql('select * from user_sessions')]);
    expect(dump).to.not.include(PASSWORD);
    expect(dump).to.not.include(token);
  });

  it('npm run admin -- set-password sets a password that signs in, generating and printing one when none is given', async () => {
    const a = await accountWithPassword();
    const before = await signIn(a.user.email);
    const given = await adminViaNpm('set-password', '--email', a.user.email, '--password', 'a new password 1');
    expect(given.code, given.stderr).to.equal(0);
    expect(given.stdout).to.equal(`user ${a.user.id} ${a.user.email} (account ${a.account.id}): password set\n`);
    expect((await asBrowser(before, 'GET', '/me')).status, 'a reset password signs the user out').to.equal(401);
    expect((await postSession({ email: a.user.email, password: PASSWORD })).status).to.equal(401);
    await signIn(a.user.email, 'a new password 1');

    const generated = await admin('set-password', '--email', a.user.email, '--account', String(a.account.id), '--json');
    expect(generated.code, generated.stderr).to.equal(0);
    const out = JSON.parse(generated.stdout);
    expect(out.user).to.deep.equal({ id: a.user.id, email: a.user.email, accountId: a.account.id });
    expect(out.password).to.match(/^[A-Za-z0-9_-]{16}$/);
    await signIn(a.user.email, out.password);

    const short = await admin('set-password', '--email', a.user.email, '--password', 'short');
    expect(short.code).to.equal(1);
    expect(short.stderr).to.include('at least 10 characters');
    const unknown = await admin('set-password', '--email', 'nobody@nowhere.test');
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('No user has the email nobody@nowhere.test');
  });
});
