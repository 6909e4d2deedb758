/**
 * Sign-in limits (issue 46): per client address and per email (429 `rate_limited`), and the lockout of an email after
 * wrong passwords in a row (429 `sign_in_locked`), unknown emails alike, holding across API processes (the buckets are
 * PostgreSQL's); the cookie is `Secure` when the request came over https as the trusted proxies say.
 */
import type { Server } from 'node:http';
import { expect } from 'chai';
import type { SignInLimitSettings } from '../../../lib/config.js';
import { parseTrustProxy } from '../../../lib/http/trusted-proxies.js';
import { harness, listen } from '../../setup/harness.js';
import { call } from '../../setup/http.js';
import { waitUntil } from '../../setup/runs.js';
import { accountWithPassword, PASSWORD, postSession, sessionSetCookie } from './sessions.helpers.js';

const NONE: SignInLimitSettings = { perAddress: null, perEmail: null, lockout: null };

describe('sign-in limits', function () {
  this.timeout(60_000);
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  /** An API of its own with these limits (the suite's API has none), behind one trusted proxy hop. */
  async function api(signInLimits: Partial<SignInLimitSettings>): Promise<string> {
    const { server, origin } = await listen({
      config: {
        publicBaseUrl: 'http://127.0.0.1',
        bodyLimitBytes: 64 * 1024,
        taskQueue: harness().taskQueue,
        trustProxy: parseTrustProxy('1'),
        signInLimits: { ...NONE, ...signInLimits },
      },
    });
    servers.push(server);
    return `${origin}/public/v1`;
  }
  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

  it('locks an email after N wrong passwords in a row, across API processes; the right password waits too, then signs in', async () => {
    const a = await accountWithPassword();
    const lockout = { failures: 3, lockSeconds: 2 };
    const [one, two] = [await api({ lockout }), await api({ lockout })];
    for (const baseUrl of [one, two, one]) {
      const res = await postSession({ email: a.user.email, password: 'wrong password' }, { baseUrl });
      expect(res.status).to.equal(401);
    }
    const locked = await postSession({ email: a.user.email, password: PASSWORD }, { baseUrl: two });
    expect(locked.status).to.equal(429);
    expect(locked.body.code).to.equal('sign_in_locked');
    expect(locked.headers.get('retry-after')).to.equal('2');
    expect(sessionSetCookie(locked)).to.equal(undefined);

    const unlocked = await waitUntil(
      () => postSession({ email: a.user.email, password: PASSWORD }, { baseUrl: one }),
      (res) => res.status !== 429,
      'the lock to pass',
      10_000,
    );
    expect(unlocked.status).to.equal(201);
    // The right password started the count again: two more failures do not lock it.
    for (let i = 0; i < 2; i++) expect((await postSession({ email: a.user.email, password: 'wrong again' }, { baseUrl: one })).status).to.equal(401);
    expect((await postSession({ email: a.user.email, password: PASSWORD }, { baseUrl: two })).status).to.equal(201);
  });

  it('locks an unknown email exactly as a known one: the answers are the same', async () => {
    const a = await accountWithPassword();
    const baseUrl = await api({ lockout: { failures: 2, lockSeconds: 60 } });
    const answers = async (email: string) => {
      const texts: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await postSession({ email, password: 'wrong password' }, { baseUrl });
        texts.push(`${res.status} ${res.headers.get('retry-after')} ${res.text}`);
      }
      return texts;
    };
    const known = await answers(a.user.email);
    const unknown = await answers(`nobody-${Date.now()}@example.test`);
    expect(known).to.deep.equal(unknown);
    expect(known[2]).to.match(/^429 60 .*"sign_in_locked"/);
  });

  it("counts a wrong current password of PUT /me/password toward the email's lockout", async () => {
    const a = await accountWithPassword();
    const baseUrl = await api({ lockout: { failures: 2, lockSeconds: 60 } });
    const change = (currentPassword: string) =>
      call('PUT', '/me/password', { baseUrl, key: a.userKey, body: { currentPassword, newPassword: 'a brand new password' } });
    for (let i = 0; i < 2; i++) expect((await change('a wrong guess')).status).to.equal(403);
    const locked = await change(PASSWORD);
    expect(locked.status).to.equal(429);
    expect(locked.body.code).to.equal('sign_in_locked');
    expect((await postSession({ email: a.user.email, password: PASSWORD }, { baseUrl })).body.code).to.equal('sign_in_locked');
  });

  it('limits sign-ins per client address and per email (429 rate_limited with Retry-After)', async () => {
    const a = await accountWithPassword();
    const byAddress = await api({ perAddress: { perSecond: 0.01, burst: 2 } });
    for (const email of ['x1@example.test', 'x2@example.test']) {
      expect((await postSession({ email, password: 'wrong password' }, { baseUrl: byAddress, ...from('203.0.113.7') })).status).to.equal(401);
    }
    const limited = await postSession({ email: a.user.email, password: PASSWORD }, { baseUrl: byAddress, ...from('203.0.113.7') });
    expect(limited.status).to.equal(429);
    expect(limited.body.code).to.equal('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 100);
    expect((await postSession({ email: a.user.email, password: PASSWORD }, { baseUrl: byAddress, ...from('203.0.113.8') })).status).to.equal(201);

    const byEmail = await api({ perEmail: { perSecond: 0.01, burst: 2 } });
    for (const address of ['198.51.100.1', '198.51.100.2']) {
      expect((await postSession({ email: a.user.email, password: 'wrong password' }, { baseUrl: byEmail, ...from(address) })).status).to.equal(401);
    }
    const emailLimited = await postSession({ email: a.user.email.toUpperCase(), password: PASSWORD }, { baseUrl: byEmail, ...from('198.51.100.3') });
    expect(emailLimited.status).to.equal(429);
    expect(emailLimited.body.code).to.equal('rate_limited');
  });

  it('sets Secure on the cookie when the client came over https as a trusted proxy says, and records its address', async () => {
    const a = await accountWithPassword();
    const trusted = await api({});
    const https = await postSession(
      { email: a.user.email, password: PASSWORD },
      { baseUrl: trusted, headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '192.0.2.44' } },
    );
    expect(https.status).to.equal(201);
    expect(sessionSetCookie(https)).to.match(/; HttpOnly; SameSite=Lax; Max-Age=43200; Secure$/);
    const [row] = await harness().orm.em.getConnection().execute('select address from user_sessions where id = ?', [https.body.id]);
    expect(row.address).to.equal('192.0.2.44');
    // The suite's API trusts no proxy: the same headers from anyone change nothing.
    const forged = await postSession({ email: a.user.email, password: PASSWORD }, { headers: { 'x-forwarded-proto': 'https' } });
    expect(sessionSetCookie(forged)).to.not.include('Secure');
  });
});
