import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { findWebhookOfAccount } from '../../db/automations/incoming-webhooks.service.js';
import { harness } from '../setup/harness.js';
import { call, newAccount, type CallOptions, type CallResult } from '../setup/http.js';

interface WebhookRow {
  id: string;
  account_id: number;
  name: string;
  description: string | null;
  is_active: boolean;
  use_authentication: boolean;
  token_hash: string | null;
  token_prefix: string | null;
}

interface OutboxRow {
  id: string;
  account_id: number;
  type: string;
  payload: { webhookId: string; receivedAt: string; body: unknown };
}

const sql = <T>(query: string, params: unknown[] = []): Promise<T[]> => harness().orm.em.getConnection().execute<T[]>(query, params);

const webhookRow = async (id: string): Promise<WebhookRow | undefined> =>
  (await sql<WebhookRow>('select * from incoming_webhooks where id = ?', [id]))[0];

const eventsOf = (webhookId: string): Promise<OutboxRow[]> =>
  sql<OutboxRow>(
    `select id, account_id, type, payload from outbox_events where type = 'INCOMING_WEBHOOK' and payload->>'webhookId' = ? order by id`,
    [webhookId],
  );

/** POST to the inbound URL (outside /public/v1). */
const deliver = (id: string, options: CallOptions = {}): Promise<CallResult> =>
  call('POST', `/webhooks/${id}`, { baseUrl: harness().origin, ...options });

async function createWebhook(key: string, body: Record<string, unknown> = { name: 'Orders' }) {
  const res = await call('POST', '/incoming-webhooks', { key, body });
  expect(res.status, res.text).to.equal(201);
  return res.body as { id: string; accessToken?: string; url: string };
}

describe('incoming webhooks', () => {
  describe('POST /public/v1/incoming-webhooks', () => {
    it('creates a webhook with its URL and a 64-character token shown once and stored only as a hash', async () => {
      const acct = await newAccount();
      const res = await call('POST', '/incoming-webhooks', { key: acct.userKey, body: { name: '  Shop orders  ', description: 'From the shop' } });
      expect(res.status).to.equal(201);
      const wh = res.body;
      expect(Object.keys(wh).sort()).to.deep.equal(
        ['accessToken', 'createdAt', 'description', 'id', 'isActive', 'name', 'updatedAt', 'url', 'useAuthentication'].sort(),
      );
      expect(wh.id).to.match(/^wh_[A-Za-z0-9]{24}$/);
      expect(wh).to.include({ name: 'Shop orders', description: 'From the shop', isActive: true, useAuthentication: true });
      expect(wh.url).to.equal(`http://127.0.0.1/webhooks/${wh.id}`);
      expect(wh.accessToken).to.match(/^[A-Za-z0-9]{64}$/);
      expect(new Date(wh.createdAt).toISOString()).to.equal(wh.createdAt);
      expect(new Date(wh.updatedAt).toISOString()).to.equal(wh.updatedAt);

      const row = await webhookRow(wh.id);
      expect(row).to.include({ account_id: acct.account.id, name: 'Shop orders', is_active: true, use_authentication: true });
      expect(row!.token_hash).to.equal(createHash('sha256').update(wh.accessToken).digest('hex'));
      expect(row!.token_prefix).to.equal(wh.accessToken.slice(0, 8));
      expect(JSON.stringify(row)).to.not.include(wh.accessToken);
    });

    it('gives no token when useAuthentication is false, and a null description by default', async () => {
      const acct = await newAccount();
      const res = await call('POST', '/incoming-webhooks', { key: acct.userKey, body: { name: 'Open', useAuthentication: false } });
      expect(res.status).to.equal(201);
      expect(res.body).to.not.have.property('accessToken');
      expect(res.body).to.include({ useAuthentication: false, isActive: true, description: null });
      const row = await webhookRow(res.body.id);
      expect(row).to.include({ use_authentication: false, token_hash: null, token_prefix: null });
    });

    it('issues a different id and token each time', async () => {
      const acct = await newAccount();
      const [a, b] = await Promise.all([createWebhook(acct.userKey), createWebhook(acct.userKey)]);
      expect(a.id).to.not.equal(b.id);
      expect(a.accessToken).to.not.equal(b.accessToken);
    });

    const invalid: [string, Record<string, unknown>, string, string][] = [
      ['a missing name', {}, 'name', 'required'],
      ['an empty name', { name: '' }, 'name', 'invalid'],
      ['a blank name', { name: '   ' }, 'name', 'invalid'],
      ['a name over 255 characters', { name: 'x'.repeat(256) }, 'name', 'invalid'],
      ['a non-boolean useAuthentication', { name: 'A', useAuthentication: 'yes' }, 'useAuthentication', 'invalid'],
      ['an unknown top-level key', { name: 'A', secret: 'x' }, 'secret', 'unknown_field'],
    ];
    for (const [label, body, path, code] of invalid) {
      it(`answers 400 naming ${path} for ${label}`, async () => {
        const acct = await newAccount();
        const res = await call('POST', '/incoming-webhooks', { key: acct.userKey, body });
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('bad_request');
        const issue = (res.body.details.issues as { code: string; path: string }[]).find((i) => i.path === path);
        expect(issue, JSON.stringify(res.body)).to.include({ code, path });
      });
    }

    it('refuses a GENERAL key with 403 and a missing key with 401', async () => {
      const acct = await newAccount();
      const general = await call('POST', '/incoming-webhooks', { key: acct.generalKey, body: { name: 'A' } });
      expect(general.status).to.equal(403);
      expect(general.body.code).to.equal('forbidden');
      const missing = await call('POST', '/incoming-webhooks', { body: { name: 'A' } });
      expect(missing.status).to.equal(401);
      expect(missing.body.message).to.be.a('string');
      expect(await sql('select 1 from incoming_webhooks where account_id = ?', [acct.account.id])).to.have.length(0);
    });
  });

  describe('POST /webhooks/:webhookId', () => {
    const bodies: [string, unknown][] = [
      ['an object', { order: { id: 7, items: [{ sku: 'A-1', qty: 2 }] }, note: 'ünïcødé', nested: { empty: {}, nothing: null } }],
      ['an array', [1, 'two', { three: 3 }, null]],
      ['a number', 42],
      ['a string', 'hello'],
      ['an empty string', ''],
      ['false', false],
      ['null', null],
    ];
    for (const [label, sent] of bodies) {
      it(`accepts ${label} with the right token: 202 and an INCOMING_WEBHOOK outbox event carrying the body as sent`, async () => {
        const acct = await newAccount();
        const wh = await createWebhook(acct.userKey);
        const before = Date.now();
        const res = await deliver(wh.id, { key: wh.accessToken, body: sent });
        expect(res.status, res.text).to.equal(202);
        expect(Object.keys(res.body)).to.deep.equal(['eventId']);
        expect(res.body.eventId).to.be.a('string');
        const events = await eventsOf(wh.id);
        expect(events).to.have.length(1);
        const event = events[0]!;
        expect(String(event.id)).to.equal(res.body.eventId);
        expect(event.account_id).to.equal(acct.account.id);
        expect(event.type).to.equal('INCOMING_WEBHOOK');
        expect(Object.keys(event.payload).sort()).to.deep.equal(['body', 'receivedAt', 'webhookId']);
        expect(event.payload.webhookId).to.equal(wh.id);
        expect(event.payload.body).to.deep.equal(sent);
        expect(new Date(event.payload.receivedAt).getTime()).to.be.within(before - 1000, Date.now() + 1000);
      });
    }

    it('writes one event per call', async () => {
      const acct = await newAccount();
      const wh = await createWebhook(acct.userKey);
      const results = await Promise.all([1, 2, 3].map((n) => deliver(wh.id, { key: wh.accessToken, body: { n } })));
      expect(results.map((r) => r.status)).to.deep.equal([202, 202, 202]);
      const events = await eventsOf(wh.id);
      expect(events.map((e) => (e.payload.body as { n: number }).n).sort()).to.deep.equal([1, 2, 3]);
      expect(new Set(results.map((r) => r.body.eventId)).size).to.equal(3);
    });

    const refused: [string, (token: string) => Record<string, string>][] = [
      ['no Authorization header', () => ({})],
      ['a wrong token', () => ({ authorization: `Bearer ${'A'.repeat(64)}` })],
      ['the token with one character changed', (t) => ({ authorization: `Bearer ${t.slice(0, -1)}${t.endsWith('a') ? 'b' : 'a'}` })],
      ['a non-Bearer scheme', (t) => ({ authorization: `Basic ${t}` })],
      ['an empty Bearer token', () => ({ authorization: 'Bearer ' })],
    ];
    for (const [label, headers] of refused) {
      it(`answers 401 and writes nothing for ${label}`, async () => {
        const acct = await newAccount();
        const wh = await createWebhook(acct.userKey);
        const res = await deliver(wh.id, { headers: headers(wh.accessToken!), body: { a: 1 } });
        expect(res.status).to.equal(401);
        expect(res.body.code).to.equal('unauthorized');
        expect(res.body.message).to.be.a('string').and.not.equal('');
        expect(await eventsOf(wh.id)).to.have.length(0);
      });
    }

    it("refuses another webhook's token and an API key", async () => {
      const acct = await newAccount();
      const [a, b] = await Promise.all([createWebhook(acct.userKey), createWebhook(acct.userKey)]);
      expect((await deliver(a.id, { key: b.accessToken, body: {} })).status).to.equal(401);
      expect((await deliver(a.id, { key: acct.userKey, body: {} })).status).to.equal(401);
      expect(await eventsOf(a.id)).to.have.length(0);
    });

    it('answers 404 for an unknown webhook', async () => {
      for (const id of [`wh_${'a'.repeat(24)}`, 'wh_nope', 'not-a-webhook']) {
        const res = await deliver(id, { body: { a: 1 } });
        expect(res.status, id).to.equal(404);
        expect(res.body.code).to.equal('not_found');
      }
    });

    it('answers 404 while the webhook is inactive, even with the right token, and accepts again once reactivated', async () => {
      const acct = await newAccount();
      const wh = await createWebhook(acct.userKey);
      expect((await call('PATCH', `/incoming-webhooks/${wh.id}`, { key: acct.userKey, body: { isActive: false } })).body.isActive).to.equal(false);
      const res = await deliver(wh.id, { key: wh.accessToken, body: { a: 1 } });
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal('not_found');
      expect(await eventsOf(wh.id)).to.have.length(0);
      expect((await call('PATCH', `/incoming-webhooks/${wh.id}`, { key: acct.userKey, body: { isActive: true } })).status).to.equal(200);
      expect((await deliver(wh.id, { key: wh.accessToken, body: { a: 1 } })).status).to.equal(202);
    });

    it('accepts calls without a token when useAuthentication is false', async () => {
      const acct = await newAccount();
      const wh = await createWebhook(acct.userKey, { name: 'Open', useAuthentication: false });
      const res = await deliver(wh.id, { body: { open: true } });
      expect(res.status).to.equal(202);
      const withHeader = await deliver(wh.id, { headers: { authorization: 'Bearer whatever' }, body: { open: true } });
      expect(withHeader.status).to.equal(202);
      expect((await eventsOf(wh.id)).map((e) => e.payload.body)).to.deep.equal([{ open: true }, { open: true }]);
    });

    it('answers 415 with the error envelope for a body that is not JSON', async () => {
      const acct = await newAccount();
      const wh = await createWebhook(acct.userKey);
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await deliver(wh.id, { key: wh.accessToken, rawBody: 'a=1', headers: { 'content-type': type } });
        expect(res.status, type).to.equal(415);
        expect(res.body.code).to.equal('bad_request');
        expect(res.body.message).to.match(/application\/json/);
      }
      expect(await eventsOf(wh.id)).to.have.length(0);
    });

    it('answers 400 for malformed JSON and for a missing or empty body', async () => {
      const acct = await newAccount();
      const wh = await createWebhook(acct.userKey);
      const malformed = await deliver(wh.id, { key: wh.accessToken, rawBody: '{"a":' });
      expect(malformed.status).to.equal(400);
      const empty = await deliver(wh.id, { key: wh.accessToken, rawBody: '' });
      expect(empty.status).to.equal(400);
      expect(empty.body.code).to.equal('bad_request');
      const none = await deliver(wh.id, { key: wh.accessToken });
      expect(none.status).to.equal(400);
      expect(none.body.message).to.match(/JSON body is required/);
      expect(await eventsOf(wh.id)).to.have.length(0);
    });

    it('answers 413 for a body over the size limit', async () => {
      const acct = await newAccount();
      const wh = await createWebhook(acct.userKey);
      const res = await deliver(wh.id, { key: wh.accessToken, body: { blob: 'x'.repeat(70 * 1024) } });
      expect(res.status).to.equal(413);
      expect(res.body.code).to.equal('payload_too_large');
      expect(await eventsOf(wh.id)).to.have.length(0);
    });

    it('accepts JSON media types with a suffix and a charset', async () => {
      const acct = await newAccount();
      const wh = await createWebhook(acct.userKey);
      const res = await deliver(wh.id, { key: wh.accessToken, body: { a: 1 }, headers: { 'content-type': 'application/json; charset=utf-8' } });
      expect(res.status).to.equal(202);
      const vnd = await deliver(wh.id, { key: wh.accessToken, body: { b: 2 }, headers: { 'content-type': 'application/vnd.api+json' } });
      expect(vnd.status).to.equal(202);
    });
  });

  describe('accounts', () => {
    it("keeps one account's webhooks invisible to another", async () => {
      const a = await newAccount();
      const b = await newAccount();
      const wh = await createWebhook(a.userKey);
      const em = harness().orm.em.fork();
      expect(await findWebhookOfAccount(em, b.account.id, wh.id)).to.equal(null);
      const found = await findWebhookOfAccount(em, a.account.id, wh.id);
      expect(found?.id).to.equal(wh.id);
      expect(await findWebhookOfAccount(em, a.account.id, 'not-a-webhook')).to.equal(null);
      expect((await call('PATCH', `/incoming-webhooks/${wh.id}`, { key: b.userKey, body: { isActive: false } })).status).to.equal(404);
      expect((await webhookRow(wh.id))!.is_active).to.equal(true);
    });
  });
});
