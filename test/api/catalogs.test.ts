import { expect } from 'chai';
import { findAiModel, findModelByExternalId } from '../../db/catalogs/ai-models.service.js';
import {
  addMessagingTemplate,
  addSocialAccount,
  connectMessagingNumber,
  findApprovedTemplate,
  findMessagingNumber,
} from '../../db/channels/numbers-and-pages.service.js';
import { connectAccount, findConnectedAccount } from '../../db/catalogs/integrations.service.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { newAgent } from './agents/agent-calls.helpers.js';

const em = () => harness().orm.em.fork();

describe('catalogs: AI models', () => {
  it('lists the catalog with every SPEC.md field, deprecated models flagged, bodies matching the documented schema', async () => {
    const acct = await newAccount();
    const res = await call('GET', '/ai-models', { key: acct.generalKey });
    expect(res.status).to.equal(200);
    const models = res.body.agentry as Record<string, unknown>[];
    expect(res.body.nextCursor).to.equal(null);
    expect(models.length).to.be.greaterThan(8);
    expect(Object.keys(models[0]!).sort()).to.deep.equal(
      [
        'aiVendor',
        'analyticsColor',
        'creditsPerMessage',
        'deprecated',
        'description',
        'externalId',
        'id',
        'isDefault',
        'name',
        'order',
        'reasoningModel',
        'type',
      ].sort(),
    );
    for (const m of models) {
      expect(m.id as number).to.be.below(0);
      expect(m.aiVendor).to.match(/^[A-Z]+$/);
      expect(m.analyticsColor).to.match(/^#[0-9A-Fa-f]{6}$/);
    }
    expect(models.some((m) => m.deprecated === true && m.type === 'TEXT')).to.equal(true);
    expect(models.find((m) => m.externalId === 'o3-mini')).to.include({ aiVendor: 'OPENAI', reasoningModel: true, deprecated: false });
    expect(new Set(models.filter((m) => m.type === 'TEXT').map((m) => m.aiVendor))).to.include.all.keys('OPENAI', 'ANTHROPIC', 'GOOGLE');

    const paged = await call('GET', '/ai-models?limit=3', { key: acct.userKey });
    expect(paged.body.agentry.map((m: { id: number }) => m.id)).to.deep.equal(models.slice(0, 3).map((m) => m.id));
    const next = await call('GET', `/ai-models?limit=3&cursor=${paged.body.nextCursor}`, { key: acct.userKey });
    expect(next.body.agentry.map((m: { id: number }) => m.id)).to.deep.equal(models.slice(3, 6).map((m) => m.id));
  });

  it('filters by type, and has exactly one non-deprecated default per type, served by /ai-models/default', async () => {
    const acct = await newAccount();
    for (const type of ['TEXT', 'TRANSCRIPTION', 'FILE_ANALYSIS']) {
      const list = await call('GET', `/ai-models?type=${type}&limit=500`, { key: acct.generalKey });
      expect(list.status).to.equal(200);
      const models = list.body.agentry as { id: number; type: string; isDefault: boolean; deprecated: boolean }[];
      expect(models.length, type).to.be.greaterThan(0);
      expect(models.every((m) => m.type === type)).to.equal(true);
      const defaults = models.filter((m) => m.isDefault);
      expect(defaults, type).to.have.length(1);
      expect(defaults[0]!.deprecated).to.equal(false);
      const def = await call('GET', `/ai-models/default?type=${type}`, { key: acct.userKey });
      expect(def.status).to.equal(200);
      expect(def.body).to.deep.equal(defaults[0]);
    }
    const whisper = (await call('GET', '/ai-models?type=TRANSCRIPTION', { key: acct.userKey })).body.agentry.find(
      (m: { externalId: string }) => m.externalId === 'whisper-1',
    );
    expect(whisper).to.include({ aiVendor: 'OPENAI', isDefault: true });
  });

  it('answers one model by id, 404 for an unknown id', async () => {
    const acct = await newAccount();
    const one = await call('GET', '/ai-models/-1', { key: acct.generalKey });
    expect(one.status).to.equal(200);
    expect(one.body).to.include({ id: -1, type: 'TEXT' });
    const missing = await call('GET', '/ai-models/-9999', { key: acct.generalKey });
    expect(missing.status).to.equal(404);
    expect(missing.body.code).to.equal('not_found');
    expect((await call('GET', '/ai-models/99999999999', { key: acct.generalKey })).status).to.equal(404);
    expect((await call('GET', '/ai-models/abc', { key: acct.generalKey })).status).to.equal(400);
  });

  it('answers 400 naming `type` when it is missing or not a model type', async () => {
    const acct = await newAccount();
    for (const path of ['/ai-models/default', '/ai-models/default?type=IMAGE', '/ai-models?type=text']) {
      const res = await call('GET', path, { key: acct.userKey });
      expect(res.status, path).to.equal(400);
      expect(res.body.code).to.equal('bad_request');
      expect(res.body.details.issues[0].path, path).to.equal('query.type');
    }
  });

  it('looks models up by id and by vendor + provider id for node validation', async () => {
    expect((await findAiModel(em(), -1))?.externalId).to.equal('gpt-4o');
    expect(await findAiModel(em(), 12345)).to.equal(null);
    expect((await findModelByExternalId(em(), 'openai', 'gpt-4o'))?.type).to.equal('TEXT');
    expect((await findModelByExternalId(em(), 'OPENAI', 'gpt-4o', 'FILE_ANALYSIS'))?.type).to.equal('FILE_ANALYSIS');
    expect(await findModelByExternalId(em(), 'ANTHROPIC', 'gpt-4o')).to.equal(null);
  });
});

describe('catalogs: channels', () => {
  it('lists the numbers (canSendMessages, assistantId) and social accounts of the caller only', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const agentId = (await newAgent(a)).id;
    await connectMessagingNumber(em(), a.account.id, {
      phoneNumber: '+14155550123',
      phoneNumberId: '1090001',
      assistantId: agentId,
      displayName: 'Support',
    });
    await connectMessagingNumber(em(), a.account.id, { phoneNumber: '+34 612 345 678', phoneNumberId: '1090002', canSendMessages: false });
    await connectMessagingNumber(em(), b.account.id, { phoneNumber: '+442071234567', phoneNumberId: '2090001' });
    await addSocialAccount(em(), a.account.id, { platform: 'instagram', name: 'Acme IG', externalId: '1784', pages: [{ id: 'p1', name: 'Acme' }] });

    const res = await call('GET', '/channels', { key: a.generalKey });
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body.agentry).sort()).to.deep.equal(['numbers', 'socialAccounts']);
    const numbers = res.body.agentry.numbers;
    expect(numbers).to.have.length(2);
    expect(numbers[0]).to.include({
      phoneNumber: '+14155550123',
      phoneNumberId: '1090001',
      assistantId: agentId,
      canSendMessages: true,
      displayName: 'Support',
    });
    expect(numbers[1]).to.include({ phoneNumber: '+34612345678', phoneNumberId: '1090002', assistantId: null, canSendMessages: false });
    expect(res.body.agentry.socialAccounts).to.have.length(1);
    expect(res.body.agentry.socialAccounts[0]).to.include({ platform: 'INSTAGRAM', name: 'Acme IG', externalId: '1784' });
    expect(res.body.agentry.socialAccounts[0].pages).to.deep.equal([{ id: 'p1', name: 'Acme' }]);

    const other = await call('GET', '/channels', { key: b.userKey });
    expect(other.body.agentry.numbers.map((n: { phoneNumberId: string }) => n.phoneNumberId)).to.deep.equal(['2090001']);
    expect(other.body.agentry.socialAccounts).to.deep.equal([]);

    expect((await findMessagingNumber(em(), a.account.id, '1090001'))?.assistantId).to.equal(agentId);
    expect(await findMessagingNumber(em(), b.account.id, '1090001')).to.equal(null);
  });

  it('refuses a malformed phone number and a duplicate phoneNumberId in the same account', async () => {
    const a = await newAccount();
    let error = await connectMessagingNumber(em(), a.account.id, { phoneNumber: '4155550123', phoneNumberId: 'x1' }).catch((e: Error) => e);
    expect(error).to.include({ status: 400 });
    await connectMessagingNumber(em(), a.account.id, { phoneNumber: '+14155550100', phoneNumberId: 'dup' });
    error = await connectMessagingNumber(em(), a.account.id, { phoneNumber: '+14155550101', phoneNumberId: 'dup' }).catch((e: Error) => e);
    expect(error).to.include({ status: 409 });
  });

  it('lists APPROVED templates only, of the caller only, paginated', async () => {
    const a = await newAccount();
    const b = await newAccount();
    await addMessagingTemplate(em(), a.account.id, { name: 'order_update', language: 'en', bodyParams: 2 });
    await addMessagingTemplate(em(), a.account.id, { name: 'appointment_reminder', language: 'pt_BR' });
    await addMessagingTemplate(em(), a.account.id, { name: 'promo_pending', language: 'en', status: 'PENDING' });
    await addMessagingTemplate(em(), a.account.id, { name: 'promo_rejected', language: 'en', status: 'REJECTED' });
    await addMessagingTemplate(em(), b.account.id, { name: 'welcome', language: 'en' });

    const res = await call('GET', '/channels/messaging/templates', { key: a.generalKey });
    expect(res.status).to.equal(200);
    expect(res.body.agentry.map((t: { name: string }) => t.name)).to.deep.equal(['appointment_reminder', 'order_update']);
    const order = res.body.agentry[1];
    expect(order).to.include({ language: 'en', status: 'APPROVED', category: 'UTILITY' });
    expect(order.components.body.parameters).to.deep.equal([{ id: '1' }, { id: '2' }]);

    const first = await call('GET', '/channels/messaging/templates?limit=1', { key: a.userKey });
    expect(first.body.agentry).to.have.length(1);
    expect(first.body.nextCursor).to.be.a('string');

    const other = await call('GET', '/channels/messaging/templates', { key: b.generalKey });
    expect(other.body.agentry.map((t: { name: string }) => t.name)).to.deep.equal(['welcome']);

    expect((await findApprovedTemplate(em(), a.account.id, 'order_update'))?.status).to.equal('APPROVED');
    expect(await findApprovedTemplate(em(), a.account.id, 'promo_pending')).to.equal(null);
    expect(await findApprovedTemplate(em(), b.account.id, 'order_update')).to.equal(null);
  });
});

describe('catalogs: integrations', () => {
  it('lists the connected accounts of the caller only; id is the connectedAccountId', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const gmail = await connectAccount(em(), a.account.id, { toolkit: 'gmail', label: 'support@acme.test', externalId: 'ca_gmail_1' });
    const github = await connectAccount(em(), a.account.id, { toolkit: 'GITHUB', label: 'acme-org' });
    const foreign = await connectAccount(em(), b.account.id, { toolkit: 'SLACK', label: 'Other workspace' });

    const res = await call('GET', '/integrations', { key: a.userKey });
    expect(res.status).to.equal(200);
    expect(res.body.nextCursor).to.equal(null);
    expect(res.body.agentry.map((c: { id: number }) => c.id)).to.deep.equal([gmail.id, github.id]);
    expect(res.body.agentry[0]).to.include({ toolkit: 'GMAIL', label: 'support@acme.test', externalId: 'ca_gmail_1', status: 'ACTIVE' });
    expect(res.body.agentry[1].externalId).to.match(/^ca_/);

    const filtered = await call('GET', '/integrations?toolkit=github', { key: a.userKey });
    expect(filtered.body.agentry.map((c: { id: number }) => c.id)).to.deep.equal([github.id]);
    const other = await call('GET', '/integrations', { key: b.userKey });
    expect(other.body.agentry.map((c: { id: number }) => c.id)).to.deep.equal([foreign.id]);

    expect((await findConnectedAccount(em(), a.account.id, gmail.id))?.toolkit).to.equal('GMAIL');
    expect(await findConnectedAccount(em(), a.account.id, foreign.id)).to.equal(null);
    expect(await findConnectedAccount(em(), a.account.id, 2 ** 40)).to.equal(null);
  });

  it('refuses a GENERAL key with 403 on /integrations and /integrations/trigger-types', async () => {
    const acct = await newAccount();
    for (const path of ['/integrations', '/integrations/trigger-types']) {
      const res = await call('GET', path, { key: acct.generalKey });
      expect(res.status, path).to.equal(403);
      expect(res.body.code).to.equal('forbidden');
    }
  });

  it('lists trigger types with their config fields, filtered by toolkit case-insensitively', async () => {
    const acct = await newAccount();
    const all = await call('GET', '/integrations/trigger-types?limit=500', { key: acct.userKey });
    expect(all.status).to.equal(200);
    const toolkits = new Set(all.body.agentry.map((t: { toolkit: string }) => t.toolkit));
    expect([...toolkits]).to.include.members(['GMAIL', 'GITHUB', 'SLACK', 'HUBSPOT', 'GOOGLE_CALENDAR']);

    const github = await call('GET', '/integrations/trigger-types?toolkit=github', { key: acct.userKey });
    expect(github.body.agentry.length).to.be.greaterThan(0);
    expect(github.body.agentry.every((t: { toolkit: string }) => t.toolkit === 'GITHUB')).to.equal(true);
    const commit = github.body.agentry.find((t: { slug: string }) => t.slug === 'GITHUB_COMMIT_EVENT');
    expect(Object.keys(commit).sort()).to.deep.equal(['configFields', 'description', 'name', 'slug', 'toolkit']);
    expect(commit.configFields.find((f: { name: string }) => f.name === 'repo')).to.deep.include({
      type: 'string',
      required: true,
      userConfigurable: true,
      resourceType: 'github_repository',
    });
    const gmail = (await call('GET', '/integrations/trigger-types?toolkit=Gmail', { key: acct.userKey })).body.agentry;
    const newMessage = gmail.find((t: { slug: string }) => t.slug === 'GMAIL_NEW_GMAIL_MESSAGE');
    expect(newMessage.configFields.find((f: { name: string }) => f.name === 'interval')).to.include({ userConfigurable: false, required: false });
    expect((await call('GET', '/integrations/trigger-types?toolkit=NOTION', { key: acct.userKey })).body.agentry).to.deep.equal([]);
  });
});
