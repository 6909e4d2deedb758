/**
 * A signed-in person's sessions (issue 46): listed and revoked by their own user only, signed out everywhere, ended by
 * a password change, expiring after SESSION_TTL_HOURS (a short TTL here).
 */
import { expect } from 'chai';
import { createUser } from '../../../db/accounts/accounts.service.js';
import { setUserPassword } from '../../../db/accounts/passwords.service.js';
import { harness, listen } from '../../setup/harness.js';
import { call } from '../../setup/http.js';
import { waitUntil } from '../../setup/runs.js';
import { accountWithPassword, asBrowser, PASSWORD, postSession, sessionSetCookie, signIn, type Browser } from './sessions.helpers.js';

const live = async (browser: Browser, baseUrl?: string) => (await asBrowser(browser, 'GET', '/me', { csrf: false, baseUrl })).status;

describe('sessions of a signed-in person', function () {
  this.timeout(60_000);

  it("lists the user's own live sessions, newest first, marking the current one; never another user's", async () => {
    const a = await accountWithPassword();
    const colleague = await createUser(harness().orm.em.fork(), a.account.id, `colleague-${Date.now()}@example.test`);
    await setUserPassword(harness().orm.em.fork(), colleague.id, PASSWORD);
    const first = await signIn(a.user.email, PASSWORD, { headers: { 'user-agent': 'Phone' } });
    const second = await signIn(a.user.email, PASSWORD, { headers: { 'user-agent': 'Laptop' } });
    const theirs = await signIn(colleague.email);

    const list = await asBrowser(first, 'GET', '/sessions', { csrf: false });
    expect(list.status).to.equal(200);
    expect(list.body.nextCursor).to.equal(null);
    expect(list.body.agentry.map((s: { id: string; userAgent: string; current: boolean }) => [s.id, s.userAgent, s.current])).to.deep.equal([
      [second.sessionId, 'Laptop', false],
      [first.sessionId, 'Phone', true],
    ]);
    expect(Object.keys(list.body.agentry[0]).sort()).to.deep.equal(['address', 'createdAt', 'current', 'expiresAt', 'id', 'lastSeenAt', 'userAgent']);
    const byKey = await call('GET', '/sessions?limit=1', { key: a.userKey });
    expect(byKey.body.agentry.map((s: { id: string; current: boolean }) => [s.id, s.current])).to.deep.equal([[second.sessionId, false]]);
    expect(byKey.body.nextCursor).to.be.a('string');
    const theirList = await asBrowser(theirs, 'GET', '/sessions', { csrf: false });
    expect(theirList.body.agentry.map((s: { id: string }) => s.id)).to.deep.equal([theirs.sessionId]);
    expect((await call('GET', '/sessions', { key: a.generalKey })).status, 'a GENERAL key has no user').to.equal(403);
  });

  it("revokes one of the user's sessions by id; another user's or another account's session is a 404 and stays live", async () => {
    const a = await accountWithPassword();
    const colleague = await createUser(harness().orm.em.fork(), a.account.id, `colleague-${Date.now()}@example.test`);
    await setUserPassword(harness().orm.em.fork(), colleague.id, PASSWORD);
    const b = await accountWithPassword();
    const mine = await signIn(a.user.email);
    const other = await signIn(a.user.email);
    const theirs = await signIn(colleague.email);
    const elsewhere = await signIn(b.user.email);

    for (const target of [theirs, elsewhere]) {
      const res = await asBrowser(mine, 'DELETE', `/sessions/${target.sessionId}`);
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal('not_found');
      expect(await live(target)).to.equal(200);
    }
    expect((await asBrowser(mine, 'DELETE', '/sessions/not-a-uuid')).status).to.equal(404);
    expect((await asBrowser(mine, 'DELETE', `/sessions/${other.sessionId}`, { csrf: false })).status).to.equal(403);
    expect(await live(other)).to.equal(200);

    expect((await asBrowser(mine, 'DELETE', `/sessions/${other.sessionId}`)).status).to.equal(204);
    expect(await live(other)).to.equal(401);
    expect(await live(mine)).to.equal(200);
    expect((await asBrowser(mine, 'DELETE', `/sessions/${other.sessionId}`)).status, 'already revoked').to.equal(404);
    expect((await call('DELETE', `/sessions/${mine.sessionId}`, { key: b.userKey })).status).to.equal(404);
  });

  it("signs out everywhere: every session of the user ends, the user's keys and other users' sessions do not", async () => {
    const a = await accountWithPassword();
    const b = await accountWithPassword();
    const browsers = [await signIn(a.user.email), await signIn(a.user.email), await signIn(a.user.email)];
    const someoneElse = await signIn(b.user.email);
    const out = await asBrowser(browsers[0]!, 'DELETE', '/sessions');
    expect(out.status).to.equal(204);
    expect(sessionSetCookie(out)).to.equal('agentry_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
    for (const browser of browsers) expect(await live(browser)).to.equal(401);
    expect(await live(someoneElse)).to.equal(200);
    expect((await call('GET', '/me', { key: a.userKey })).status).to.equal(200);
    expect((await call('GET', '/sessions', { key: a.userKey })).body.agentry).to.deep.equal([]);

    // With a USER key (a lost laptop, signed out from a script).
    const again = await signIn(a.user.email);
    expect((await call('DELETE', '/sessions', { key: a.userKey })).status).to.equal(204);
    expect(await live(again)).to.equal(401);
  });

  it('changes the password (proving the current one): the other sessions end, this one stays', async () => {
    const a = await accountWithPassword();
    const here = await signIn(a.user.email);
    const there = await signIn(a.user.email);
    const wrong = await asBrowser(here, 'PUT', '/me/password', { body: { currentPassword: 'not it at all', newPassword: 'another password' } });
    expect(wrong.status).to.equal(403);
    expect(wrong.body.code).to.equal('invalid_credentials');
    const short = await asBrowser(here, 'PUT', '/me/password', { body: { currentPassword: PASSWORD, newPassword: 'short' } });
    expect(short.status).to.equal(400);
    expect(short.body.details.issues[0].path).to.equal('newPassword');
    expect(await live(there)).to.equal(200);

    const changed = await asBrowser(here, 'PUT', '/me/password', { body: { currentPassword: PASSWORD, newPassword: 'another password' } });
    expect(changed.status).to.equal(204);
    expect(await live(there)).to.equal(401);
    expect(await live(here)).to.equal(200);
    expect((await postSession({ email: a.user.email, password: PASSWORD })).status).to.equal(401);
    await signIn(a.user.email, 'another password');
  });

  it('expires sessions after their time to live: 401 after expiresAt, out of the list, pruned at the next sign-in', async () => {
    const a = await accountWithPassword();
    const { server, origin } = await listen({
      config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 64 * 1024, taskQueue: harness().taskQueue, sessionTtlMs: 2_000 },
    });
    try {
      const baseUrl = `${origin}/public/v1`;
      const signedIn = await postSession({ email: a.user.email, password: PASSWORD }, { baseUrl });
      expect(sessionSetCookie(signedIn)).to.match(/; Max-Age=2$/);
      const browser = { cookie: sessionSetCookie(signedIn)!.split(';')[0]!, csrfToken: signedIn.body.csrfToken, sessionId: signedIn.body.id };
      expect(await live(browser, baseUrl)).to.equal(200);
      await waitUntil(
        () => live(browser, baseUrl),
        (status) => status === 401,
        'the session to expire',
        10_000,
      );
      expect(Date.now()).to.be.at.least(Date.parse(signedIn.body.expiresAt));
      expect((await call('GET', '/sessions', { key: a.userKey })).body.agentry).to.deep.equal([]);
      const rows = () => harness().orm.em.getConnection().execute('select id from user_sessions where id = ?', [browser.sessionId]);
      expect(await rows()).to.have.length(1);
      await signIn(a.user.email, PASSWORD, { baseUrl });
      expect(await rows()).to.have.length(0);
    } finally {
      server.close();
    }
  });
});
