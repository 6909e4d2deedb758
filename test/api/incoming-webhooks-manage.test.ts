import { expect } from 'chai';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

const deliver = (id: string, token?: string) =>
  call('POST', `/webhooks/${id}`, { baseUrl: harness().origin, body: { n: 1 }, headers: token ? { authorization: `Bearer ${token}` } : {} });

async function webhook(a: Account, name: string, useAuthentication = true) {
  const res = await call('POST', '/incoming-webhooks', { key: a.userKey, body: { name, useAuthentication } });
  expect(res.status, res.text).to.equal(201);
  return res.body as { id: string; accessToken?: string };
}

describe('managing incoming webhooks (extensions of SPEC.md)', function () {
  this.timeout(30_000);

  it("lists and shows the account's webhooks without their tokens, paginated, and only its own", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const first = await webhook(a, 'First');
    const second = await webhook(a, 'Second', false);
    await webhook(b, 'Theirs');
    const page = await call('GET', '/incoming-webhooks?limit=1', { key: a.generalKey });
    expect(page.body.agentry.map((w: { name: string }) => w.name)).to.deep.equal(['First']);
    const rest = await call('GET', `/incoming-webhooks?limit=1&cursor=${page.body.nextCursor}`, { key: a.generalKey });
    expect(rest.body).to.deep.include({ nextCursor: null });
    expect(rest.body.agentry.map((w: { id: string }) => w.id)).to.deep.equal([second.id]);
    const one = await call('GET', `/incoming-webhooks/${first.id}`, { key: a.userKey });
    expect(one.body).to.include({ id: first.id, name: 'First', isActive: true, useAuthentication: true }).and.not.have.property('accessToken');
    expect((await call('GET', `/incoming-webhooks/${first.id}`, { key: b.userKey })).status).to.equal(404);
  });

  it('deactivates, renames, switches authentication and rotates the token, each token shown once', async () => {
    const a = await newAccount();
    const hook = await webhook(a, 'Shop');
    const patch = (body: unknown, key = a.userKey) => call('PATCH', `/incoming-webhooks/${hook.id}`, { key, body });
    expect((await patch({ isActive: false }, a.generalKey)).status).to.equal(403);
    expect((await patch({ isActive: false })).body).to.include({ isActive: false });
    expect((await deliver(hook.id, hook.accessToken)).status).to.equal(404);
    expect((await patch({ isActive: true, name: '  Shop v2 ' })).body).to.include({ isActive: true, name: 'Shop v2' });
    expect((await deliver(hook.id, hook.accessToken)).status).to.equal(202);

    const rotated = await call('POST', `/incoming-webhooks/${hook.id}/rotate-token`, { key: a.userKey });
    expect(rotated.body.accessToken).to.have.length(64).and.not.equal(hook.accessToken);
    expect((await deliver(hook.id, hook.accessToken)).status).to.equal(401);
    expect((await deliver(hook.id, rotated.body.accessToken)).status).to.equal(202);

    const open = await patch({ useAuthentication: false });
    expect(open.body).to.include({ useAuthentication: false }).and.not.have.property('accessToken');
    expect((await deliver(hook.id)).status).to.equal(202);
    expect((await call('POST', `/incoming-webhooks/${hook.id}/rotate-token`, { key: a.userKey })).status).to.equal(409);
    const closed = await patch({ useAuthentication: true });
    expect(closed.body.accessToken).to.have.length(64);
    expect((await deliver(hook.id)).status).to.equal(401);
    expect((await deliver(hook.id, closed.body.accessToken)).status).to.equal(202);
    expect((await patch({})).status).to.equal(400);
    expect((await patch({ name: '   ' })).body.details.issues[0]).to.include({ path: 'name' });
  });

  it('deletes a webhook, after which calls answer 404, and reports the workflows that still list it', async () => {
    const a = await newAccount();
    const hook = await webhook(a, 'Orders', false);
    const workflow = (await call('POST', '/workflows', { key: a.userKey, body: { name: 'On order' } })).body.id;
    const node = await call('POST', `/workflows/${workflow}/nodes`, {
      key: a.userKey,
      body: { type: 'WEBHOOK', data: { url: 'https://x.test/in', triggerByWebhookIds: [hook.id] } },
    });
    const nodeId = node.body.nodes[0].nodeId;
    expect((await call('DELETE', `/incoming-webhooks/${hook.id}`, { key: a.generalKey })).status).to.equal(403);
    const deleted = await call('DELETE', `/incoming-webhooks/${hook.id}`, { key: a.userKey });
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ id: hook.id, referencedBy: [{ workflowId: workflow, name: 'On order', nodeIds: [nodeId] }] });
    expect((await deliver(hook.id)).status).to.equal(404);
    expect((await call('GET', `/incoming-webhooks/${hook.id}`, { key: a.userKey })).status).to.equal(404);
    expect((await call('DELETE', `/incoming-webhooks/${hook.id}`, { key: a.userKey })).status).to.equal(404);
  });
});
