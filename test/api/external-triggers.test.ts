/**
 * EXTERNAL_TRIGGER nodes and trigger resources against a trigger provider served over real HTTP on 127.0.0.1:
 * the API under test is started with an HttpTriggerProvider pointing at it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { expect } from 'chai';
import { HttpTriggerProvider } from '../../integrations/triggers/http-trigger-provider.js';
import { connectAccount } from '../../db/catalogs/integrations.service.js';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount, type CallOptions } from '../setup/http.js';
import { API_KEY, FakeProvider } from '../setup/fake-trigger-provider.js';

describe('EXTERNAL_TRIGGER nodes and trigger resources', () => {
  const provider = new FakeProvider();
  const em = () => harness().orm.em.fork();
  let api: Server;
  let base: string;
  let a: Awaited<ReturnType<typeof newAccount>>;
  let gmail: { id: number; externalId: string };
  let github: { id: number; externalId: string };
  let foreignGmail: { id: number };

  const req = (method: string, path: string, options: CallOptions = {}) => call(method, path, { key: a.userKey, baseUrl: base, ...options });

  async function workflow(): Promise<number> {
    const res = await req('POST', '/workflows', { body: { name: 'Inbox watcher' } });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  }

  const gmailNode = (config: Record<string, unknown> = { interval: 5, labelIds: 'INBOX' }, extra: Record<string, unknown> = {}) => ({
    type: 'TRIGGER',
    alias: 'New mail',
    data: {
      triggerType: 'EXTERNAL_TRIGGER',
      connectedAccountId: gmail.id,
      triggerToolkit: 'GMAIL',
      triggerSlug: 'GMAIL_NEW_GMAIL_MESSAGE',
      triggerConfig: config,
      ...extra,
    },
  });

  before(async () => {
    const providerUrl = await provider.start();
    ({ server: api, origin: base } = await listen({ triggers: new HttpTriggerProvider({ baseUrl: providerUrl, apiKey: API_KEY, timeoutMs: 5000 }) }));
    base = `${base}/public/v1`;
    a = await newAccount();
    const other = await newAccount();
    gmail = await connectAccount(em(), a.account.id, { toolkit: 'GMAIL', label: 'support@acme.test', externalId: 'ca_gmail_support' });
    github = await connectAccount(em(), a.account.id, { toolkit: 'GITHUB', label: 'acme-org', externalId: 'ca_github_acme' });
    foreignGmail = await connectAccount(em(), other.account.id, { toolkit: 'GMAIL', label: 'other@else.test' });
  });

  after(async () => {
    await new Promise((resolve) => api.close(resolve));
    await provider.stop();
  });

  beforeEach(() => provider.reset());

  it('subscribes on create (platform-managed interval dropped, client-sent id ignored), resubscribes on update, unsubscribes on delete', async () => {
    const id = await workflow();
    const created = await req('POST', `/workflows/${id}/nodes`, { body: gmailNode(undefined, { connectedAccountTriggerId: 'forged' }) });
    expect(created.status, created.text).to.equal(201);
    const subscribe = provider.of('POST');
    expect(subscribe).to.have.length(1);
    expect(subscribe[0]!.authorization).to.equal(`Bearer ${API_KEY}`);
    expect(subscribe[0]!.body).to.deep.equal({
      connectedAccountId: 'ca_gmail_support',
      toolkit: 'GMAIL',
      slug: 'GMAIL_NEW_GMAIL_MESSAGE',
      config: { labelIds: 'INBOX' },
    });
    const node = created.body.nodes[0];
    const first = node.data.connectedAccountTriggerId;
    expect(first).to.be.a('string').and.not.equal('forged');
    expect(provider.live.has(first)).to.equal(true);
    expect(node.data.triggerConfig).to.deep.equal({ labelIds: 'INBOX' });
    const detail = await req('GET', `/workflows/${id}?includeNodes=true`);
    expect(detail.body.triggerType).to.equal('EXTERNAL_TRIGGER');
    expect(detail.body.nodes[0].data.connectedAccountTriggerId).to.equal(first);

    provider.reset();
    const updated = await req('PUT', `/workflows/${id}/nodes/${node.nodeId}`, {
      body: gmailNode({ labelIds: 'IMPORTANT', query: 'from:billing@example.com' }),
    });
    expect(updated.status, updated.text).to.equal(200);
    const second = updated.body.nodes[0].data.connectedAccountTriggerId;
    expect(second).to.be.a('string').and.not.equal(first);
    expect(provider.calls.map((c) => c.method)).to.deep.equal(['POST', 'DELETE']);
    expect(provider.calls[0]!.body.config).to.deep.equal({ labelIds: 'IMPORTANT', query: 'from:billing@example.com' });
    expect(provider.calls[1]!.path).to.equal(`/v1/trigger-subscriptions/${first}`);
    expect([...provider.live])
      .to.include(second)
      .and.not.include(first);

    provider.reset();
    const removed = await req('DELETE', `/workflows/${id}/nodes/${node.nodeId}`);
    expect(removed.status, removed.text).to.equal(200);
    expect(removed.body.nodes).to.deep.equal([]);
    expect(provider.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([`DELETE /v1/trigger-subscriptions/${second}`]);
    expect(provider.live.has(second)).to.equal(false);
  });

  it('turning the trigger into another event removes its subscription', async () => {
    const id = await workflow();
    const created = await req('POST', `/workflows/${id}/nodes`, { body: gmailNode() });
    const { nodeId, data } = created.body.nodes[0];
    provider.reset();
    const changed = await req('PUT', `/workflows/${id}/nodes/${nodeId}`, { body: { type: 'TRIGGER', data: { triggerType: 'CONTACT_CREATED' } } });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.nodes[0].data).to.not.have.property('connectedAccountTriggerId');
    expect(provider.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([`DELETE /v1/trigger-subscriptions/${data.connectedAccountTriggerId}`]);
  });

  it('soft-deleting the workflow unsubscribes the triggers of its draft and live graphs', async () => {
    const id = await workflow();
    const created = await req('POST', `/workflows/${id}/nodes`, { body: gmailNode() });
    const published = created.body.nodes[0].data.connectedAccountTriggerId;
    expect((await req('POST', `/workflows/${id}/publish`)).status).to.equal(201);
    const commits = await req('POST', `/workflows/${id}/nodes`, {
      body: {
        type: 'TRIGGER',
        alias: 'Commits',
        data: {
          triggerType: 'EXTERNAL_TRIGGER',
          connectedAccountId: github.id,
          triggerToolkit: 'GITHUB',
          triggerSlug: 'GITHUB_COMMIT_EVENT',
          triggerConfig: { owner: 'octocat', repo: 'hello' },
        },
      },
    });
    expect(commits.status, commits.text).to.equal(201);
    const draftOnly = commits.body.nodes[1].data.connectedAccountTriggerId;
    // Editing the published node after publishing: the draft holds a new subscription, the live graph the old
    // (already removed) one, which the provider no longer knows; that counts as removed.
    const edited = await req('PUT', `/workflows/${id}/nodes/${created.body.nodes[0].nodeId}`, { body: gmailNode({ labelIds: 'STARRED' }) });
    const replacement = edited.body.nodes[0].data.connectedAccountTriggerId;
    expect(provider.live.has(published)).to.equal(false);

    provider.reset();
    expect((await req('DELETE', `/workflows/${id}`)).status).to.equal(204);
    const removed = provider.of('DELETE').map((c) => c.path.split('/').pop());
    expect(removed).to.have.members([published, draftOnly, replacement]);
    expect(provider.live.has(draftOnly) || provider.live.has(replacement)).to.equal(false);
    expect((await req('GET', `/workflows/${id}`)).status).to.equal(404);
  });

  it('a provider refusal is a 400 naming its message, and the graph stays unchanged', async () => {
    const id = await workflow();
    provider.next.subscribe = { status: 422, body: { message: 'label INBOX does not exist in this mailbox' } };
    const refused = await req('POST', `/workflows/${id}/nodes`, { body: gmailNode() });
    expect(refused.status).to.equal(400);
    expect(refused.body.code).to.equal('bad_request');
    expect(refused.body.message).to.include('label INBOX does not exist in this mailbox');
    expect(refused.body.details.issues[0].path).to.equal('data');
    expect((await req('GET', `/workflows/${id}/graph`)).body).to.deep.equal({ nodes: [], edges: [] });
    expect((await req('GET', `/workflows/${id}`)).body.triggerType).to.equal(null);

    const created = await req('POST', `/workflows/${id}/nodes`, { body: gmailNode() });
    const before = (await req('GET', `/workflows/${id}/graph`)).body;
    const nodeId = created.body.nodes[0].nodeId;
    provider.reset();
    provider.next.subscribe = { status: 400, body: { error: { message: 'query is malformed' } } };
    const update = await req('PUT', `/workflows/${id}/nodes/${nodeId}`, { body: gmailNode({ query: '((' }) });
    expect(update.status).to.equal(400);
    expect(update.body.message).to.include('query is malformed');
    expect(provider.of('DELETE')).to.have.length(0);
    expect((await req('GET', `/workflows/${id}/graph`)).body).to.deep.equal(before);

    // A provider down while removing the old subscription: 502, nothing changes, the new subscription is withdrawn.
    provider.reset();
    provider.next.unsubscribe = { status: 503, body: { message: 'maintenance' } };
    const down = await req('PUT', `/workflows/${id}/nodes/${nodeId}`, { body: gmailNode({ labelIds: 'SPAM' }) });
    expect(down.status).to.equal(502);
    expect(down.body).to.include({ code: 'internal' });
    expect(down.body.message).to.include('maintenance');
    expect((await req('GET', `/workflows/${id}/graph`)).body).to.deep.equal(before);
    const old = before.nodes[0].data.connectedAccountTriggerId;
    const withdrawn = provider.of('DELETE').map((c) => c.path.split('/').pop());
    expect(provider.of('POST')).to.have.length(1);
    expect(withdrawn).to.have.length(2); // the failed removal of the old one, then the new one withdrawn
    expect(withdrawn[0]).to.equal(old);
    expect(provider.live.has(withdrawn[1]!)).to.equal(false);
    expect(provider.live.has(old)).to.equal(true);

    provider.reset();
    provider.next.unsubscribe = { status: 500, body: { message: 'boom' } };
    const deletion = await req('DELETE', `/workflows/${id}/nodes/${nodeId}`);
    expect(deletion.status).to.equal(502);
    expect((await req('GET', `/workflows/${id}/graph`)).body).to.deep.equal(before);
    provider.next.unsubscribe = { status: 500, body: { message: 'boom' } };
    expect((await req('DELETE', `/workflows/${id}`)).status).to.equal(502);
    expect((await req('GET', `/workflows/${id}`)).status).to.equal(200);
  });

  it('refuses invalid EXTERNAL_TRIGGER data with SPEC.md messages, without calling the provider', async () => {
    const id = await workflow();
    const cases: [Record<string, unknown>, number, string, string, string][] = [
      [{ triggerSlug: 'GMAIL_NOPE' }, 400, 'Unsupported trigger: GMAIL_NOPE', 'data.triggerSlug', 'invalid'],
      [
        { triggerConfig: { labelIds: 'INBOX', folder: 'x' } },
        400,
        'Unknown trigger config field for GMAIL_NEW_GMAIL_MESSAGE: folder',
        'data.triggerConfig.folder',
        'unknown_field',
      ],
      [{ triggerConfig: { labelIds: 42 } }, 400, 'Invalid trigger config: labelIds - must be a string', 'data.triggerConfig.labelIds', 'invalid'],
      [
        { triggerSlug: 'GOOGLE_CALENDAR_EVENT_STARTING_SOON', triggerToolkit: 'GOOGLE_CALENDAR', triggerConfig: { minutesBefore: '10' } },
        400,
        'Invalid trigger config: minutesBefore - must be a number',
        'data.triggerConfig.minutesBefore',
        'invalid',
      ],
      [
        { triggerSlug: 'GITHUB_COMMIT_EVENT', triggerToolkit: 'GITHUB', connectedAccountId: github.id, triggerConfig: { owner: 'octocat' } },
        400,
        'Invalid trigger config: repo - is required',
        'data.triggerConfig.repo',
        'required',
      ],
    ];
    for (const [data, status, message, path, code] of cases) {
      const base = gmailNode().data;
      const res = await req('POST', `/workflows/${id}/nodes`, { body: { type: 'TRIGGER', data: { ...base, ...data } } });
      expect(res.status, message).to.equal(status);
      expect(res.body.message).to.equal(message);
      expect(res.body.details.issues).to.deep.include({ code, path, message });
    }

    const wrongToolkit = await req('POST', `/workflows/${id}/nodes`, { body: gmailNode(undefined, { triggerToolkit: 'gmail' }) });
    expect(wrongToolkit.status).to.equal(400);
    expect(wrongToolkit.body.details.issues[0]).to.include({ code: 'invalid', path: 'data.triggerToolkit' });
    const wrongAccount = await req('POST', `/workflows/${id}/nodes`, { body: gmailNode(undefined, { connectedAccountId: github.id }) });
    expect(wrongAccount.body.details.issues[0]).to.include({ code: 'invalid', path: 'data.connectedAccountId' });
    const missing = await req('POST', `/workflows/${id}/nodes`, { body: { type: 'TRIGGER', data: { triggerType: 'EXTERNAL_TRIGGER' } } });
    expect(missing.body.details.issues.map((i: { path: string }) => i.path)).to.have.members([
      'data.triggerSlug',
      'data.triggerToolkit',
      'data.connectedAccountId',
    ]);

    const foreign = await req('POST', `/workflows/${id}/nodes`, { body: gmailNode(undefined, { connectedAccountId: foreignGmail.id }) });
    expect(foreign.status).to.equal(400);
    expect(foreign.body.code).to.equal('bad_request');
    expect(foreign.body.details.issues).to.deep.include({
      code: 'not_found',
      path: 'data.connectedAccountId',
      message: `no connected account ${foreignGmail.id} in this account`,
    });

    expect(provider.calls).to.deep.equal([]);
    expect((await req('GET', `/workflows/${id}/graph`)).body.nodes).to.deep.equal([]);
  });

  it('without a configured provider, saving an EXTERNAL_TRIGGER node is a clear 400 and nothing is saved', async () => {
    const id = (await call('POST', '/workflows', { key: a.userKey, body: { name: 'No provider' } })).body.id;
    const res = await call('POST', `/workflows/${id}/nodes`, { key: a.userKey, body: gmailNode() });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.include('third-party triggers are not configured');
    expect((await call('GET', `/workflows/${id}/graph`, { key: a.userKey })).body.nodes).to.deep.equal([]);
    const resources = await call('GET', `/integrations/trigger-resources?resourceType=gmail_label&connectedAccountId=${gmail.id}`, {
      key: a.userKey,
    });
    expect(resources.status).to.equal(400);
    expect(resources.body.message).to.include('third-party triggers are not configured');
  });

  it("lists trigger resources from the provider, for the account's own connected accounts and USER keys only", async () => {
    const res = await req('GET', `/integrations/trigger-resources?resourceType=github_repository&connectedAccountId=${github.id}&parent=octocat`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({
      agentry: [
        { id: 'octocat/hello', name: 'hello', hasChildren: true },
        { id: 'octocat/world', name: 'world', hasChildren: false },
      ],
      nextCursor: null,
    });
    expect(provider.calls).to.have.length(1);
    expect(provider.calls[0]).to.deep.include({
      method: 'GET',
      path: '/v1/resources',
      query: { connectedAccountId: 'ca_github_acme', resourceType: 'github_repository', parent: 'octocat' },
      authorization: `Bearer ${API_KEY}`,
    });
    const doc = (await req('GET', '/openapi.json')).body;
    expect(doc.components.schemas).to.have.property('TriggerResourcePage');

    provider.reset();
    const noParent = await req('GET', `/integrations/trigger-resources?resourceType=gmail_label&connectedAccountId=${gmail.id}`);
    expect(noParent.status).to.equal(200);
    expect(provider.calls[0]!.query).to.deep.equal({ connectedAccountId: 'ca_gmail_support', resourceType: 'gmail_label' });

    expect((await req('GET', `/integrations/trigger-resources?resourceType=gmail_label&connectedAccountId=${foreignGmail.id}`)).status).to.equal(404);
    expect((await req('GET', `/integrations/trigger-resources?resourceType=gmail_label&connectedAccountId=999999`)).status).to.equal(404);
    const general = await req('GET', `/integrations/trigger-resources?resourceType=gmail_label&connectedAccountId=${gmail.id}`, {
      key: a.generalKey,
    });
    expect(general.status).to.equal(403);
    const unknownType = await req('GET', `/integrations/trigger-resources?resourceType=planets&connectedAccountId=${gmail.id}`);
    expect(unknownType.status).to.equal(400);
    expect(unknownType.body.details.issues[0].path).to.match(/resourceType/);
    const noAccount = await req('GET', '/integrations/trigger-resources?resourceType=gmail_label');
    expect(noAccount.status).to.equal(400);

    provider.next.resources = { status: 404, body: { message: 'parent nope not found' } };
    const refused = await req('GET', `/integrations/trigger-resources?resourceType=github_repository&connectedAccountId=${github.id}&parent=nope`);
    expect(refused.status).to.equal(400);
    expect(refused.body.message).to.include('parent nope not found');
    provider.next.resources = { status: 500, body: { message: 'exploded' } };
    const failed = await req('GET', `/integrations/trigger-resources?resourceType=gmail_label&connectedAccountId=${gmail.id}`);
    expect(failed.status).to.equal(502);
    expect(failed.body).to.include({ code: 'internal' });
  });

  it('an unreachable provider is a 502, not a 500', async () => {
    const { server, origin } = await listen({
      triggers: new HttpTriggerProvider({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: API_KEY, timeoutMs: 2000 }),
    });
    try {
      const id = (await call('POST', '/workflows', { key: a.userKey, baseUrl: `${origin}/public/v1`, body: { name: 'Down' } })).body.id;
      const res = await call('POST', `/workflows/${id}/nodes`, { key: a.userKey, baseUrl: `${origin}/public/v1`, body: gmailNode() });
      expect(res.status).to.equal(502);
      expect(res.body.code).to.equal('internal');
      expect(res.body.message).to.match(/Trigger provider/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('on an ACTIVE workflow whose publish Temporal cannot follow, the new subscription is removed again and nothing is saved', async function () {
    this.timeout(60_000);
    const id = await workflow();
    const tick = { type: 'SCHEDULED_TRIGGER', data: { cronExpression: '0 9 1 1 *', timezone: 'UTC', startTime: null, endTime: null } };
    expect((await req('POST', `/workflows/${id}/nodes`, { body: tick })).status).to.equal(201);
    expect((await req('PUT', `/workflows/${id}`, { body: { status: 'ACTIVE' } })).status).to.equal(200);
    const before = (await req('GET', `/workflows/${id}/graph`)).body;
    const liveBefore = new Set(provider.live);
    // The same API and provider, with a Temporal client that cannot connect.
    // Without interceptors the client does not retry, so the failure comes at once.
    const connection = await Connection.lazy({ address: '127.0.0.1:1', interceptors: [], connectTimeout: 1000 });
    const providerUrl = (provider as unknown as { server: Server }).server.address() as AddressInfo;
    const { server, origin } = await listen({
      temporal: new Client({ connection }),
      triggers: new HttpTriggerProvider({ baseUrl: `http://127.0.0.1:${providerUrl.port}/v1`, apiKey: API_KEY, timeoutMs: 5000 }),
    });
    try {
      const res = await call('POST', `/workflows/${id}/nodes`, { key: a.userKey, baseUrl: `${origin}/public/v1`, body: gmailNode() });
      expect(res.status, res.text).to.equal(503);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await connection.close();
    }
    expect((await req('GET', `/workflows/${id}/graph`)).body).to.deep.equal(before);
    expect(provider.live).to.deep.equal(liveBefore);
    expect(provider.of('DELETE')).to.have.length.greaterThan(0);
  });
});
