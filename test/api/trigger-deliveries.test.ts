/**
 * Signed EXTERNAL_TRIGGER deliveries through real HTTP: the trigger provider (a local server) receives a callback URL
 * and a secret with each subscription, and deliveries signed with that secret start the ACTIVE workflow holding it.
 */
import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { HttpTriggerProvider } from '../../integrations/triggers/http-trigger-provider.js';
import { pruneDeliveryReceipts } from '../../db/automations/trigger-deliveries.service.js';
import { connectAccount } from '../../db/catalogs/integrations.service.js';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount, type CallOptions } from '../setup/http.js';
import { API_KEY, FakeProvider } from '../setup/fake-trigger-provider.js';
import { openRuns, quiet, undispatchedEvents } from '../setup/quiet.js';
import { eventually, ledgerRuns, runResult, waitUntil } from '../setup/runs.js';

const SIGNING_KEY = 'test-signing-key-0123456789abcdef-0123456789';
const PUBLIC_BASE = 'https://agentry.example.test';

/** The documented scheme, computed independently of agentry's code. */
const secretOf = (subscriptionId: string) => createHmac('sha256', SIGNING_KEY).update(subscriptionId).digest('hex');
const sign = (secret: string, timestamp: number, body: string) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

describe('signed trigger deliveries', function () {
  this.timeout(60_000);
  const provider = new FakeProvider();
  let api: Server;
  let origin: string;
  let a: Awaited<ReturnType<typeof newAccount>>;
  let gmail: { id: number };

  const req = (method: string, path: string, options: CallOptions = {}) =>
    call(method, path, { key: a.userKey, baseUrl: `${origin}/public/v1`, ...options });

  /** POSTs `body` as sent to the subscription's callback, signed unless `headers` say otherwise. */
  async function deliver(
    subscriptionId: string,
    body: string,
    headers?: Record<string, string>,
    timestamp = now(),
    extra: Record<string, string> = {},
  ) {
    const signed = headers ?? { 'x-agentry-timestamp': String(timestamp), 'x-agentry-signature': sign(secretOf(subscriptionId), timestamp, body) };
    const res = await fetch(`${origin}/trigger-deliveries/${subscriptionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signed, ...extra },
      body,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text, replayed: res.headers.get('idempotent-replayed') };
  }

  /** A workflow whose only node is a Gmail EXTERNAL_TRIGGER, in `status`; answers its id, node id and agentry's subscription id. */
  async function triggerWorkflow(status: 'ACTIVE' | 'DRAFT') {
    const id = (await req('POST', '/workflows', { body: { name: `Mail ${status}` } })).body.id as number;
    provider.reset();
    const created = await req('POST', `/workflows/${id}/nodes`, { body: gmailNode() });
    expect(created.status, created.text).to.equal(201);
    if (status === 'ACTIVE') expect((await req('PUT', `/workflows/${id}`, { body: { status: 'ACTIVE' } })).status).to.equal(200);
    return { id, nodeId: created.body.nodes[0].nodeId as string, subscriptionId: lastSubscription().subscriptionId };
  }

  const gmailNode = (labelIds = 'INBOX') => ({
    type: 'TRIGGER',
    data: {
      triggerType: 'EXTERNAL_TRIGGER',
      connectedAccountId: gmail.id,
      triggerToolkit: 'GMAIL',
      triggerSlug: 'GMAIL_NEW_GMAIL_MESSAGE',
      triggerConfig: { labelIds },
    },
  });

  /** The callback and secret the provider got with the last subscription. */
  function lastSubscription(): { subscriptionId: string; secret: string; callbackUrl: string } {
    const body = provider.of('POST').at(-1)!.body;
    const subscriptionId = decodeURIComponent(String(body.callbackUrl).split('/').at(-1)!);
    return { subscriptionId, secret: body.secret, callbackUrl: body.callbackUrl };
  }

  const indexRows = async (workflowId: number) =>
    (
      await harness()
        .orm.em.getKnex()
        .raw('select id, node_id, provider_subscription_id from trigger_subscriptions where workflow_id = ? order by created_at', [workflowId])
    ).rows as { id: string; node_id: string; provider_subscription_id: string }[];

  const outboxCount = async () =>
    Number((await harness().orm.em.getKnex().raw('select count(*) from outbox_events where account_id = ?', [a.account.id])).rows[0].count);

  before(async () => {
    const providerUrl = await provider.start();
    const h = harness();
    ({ server: api, origin } = await listen({
      triggers: new HttpTriggerProvider({ baseUrl: providerUrl, apiKey: API_KEY, timeoutMs: 5000 }),
      config: { publicBaseUrl: PUBLIC_BASE, bodyLimitBytes: 64 * 1024, taskQueue: h.taskQueue, triggerSigningKey: SIGNING_KEY },
    }));
    a = await newAccount();
    gmail = await connectAccount(harness().orm.em.fork(), a.account.id, { toolkit: 'GMAIL', label: 'inbox@acme.test', externalId: 'ca_gmail_inbox' });
  });

  after(async () => {
    await new Promise((resolve) => api.close(resolve));
    await provider.stop();
  });

  it('hands the provider a callback URL and the subscription secret, and a signed delivery starts the ACTIVE workflow with the event', async () => {
    const wf = await triggerWorkflow('ACTIVE');
    const given = lastSubscription();
    expect(given.callbackUrl).to.equal(`${PUBLIC_BASE}/trigger-deliveries/${wf.subscriptionId}`);
    expect(given.secret).to.equal(secretOf(wf.subscriptionId));
    const providerId = (await req('GET', `/workflows/${wf.id}?includeNodes=true`)).body.nodes[0].data.connectedAccountTriggerId;
    expect(await indexRows(wf.id)).to.deep.equal([{ id: wf.subscriptionId, node_id: wf.nodeId, provider_subscription_id: providerId }]);

    const event = JSON.stringify({ subject: 'Invoice 42', from: 'billing@example.test' });
    const res = await deliver(wf.subscriptionId, event);
    expect(res.status, res.text).to.equal(202);
    const runId = `automation:${wf.id}:event-${res.body.eventId}`;
    await eventually(() => runResult(runId).catch(() => undefined), `run ${runId}`);
    const log = await waitUntil(
      () => req('GET', `/workflows/${wf.id}/logs/${encodeURIComponent(runId)}`),
      (r) => r.status === 200 && r.body.status !== 'running',
      'the run in the logs',
    );
    expect(log.body).to.include({ status: 'successful', trigger_type: 'EXTERNAL_TRIGGER' });
    expect(log.body.node_results[0].output).to.deep.equal({
      connectedAccountTriggerId: providerId,
      subscriptionId: wf.subscriptionId,
      data: { subject: 'Invoice 42', from: 'billing@example.test' },
    });
  });

  it('records a delivery for a DRAFT workflow without starting it', async () => {
    const wf = await triggerWorkflow('DRAFT');
    const res = await deliver(wf.subscriptionId, '{"subject":"ignored"}');
    expect(res.status, res.text).to.equal(202);
    const knex = harness().orm.em.getKnex();
    await eventually(
      async () =>
        (await knex.raw('select dispatched_at from outbox_events where id = ?', [res.body.eventId])).rows[0]?.dispatched_at ? true : undefined,
      'the event dispatched',
    );
    expect(await ledgerRuns(wf.id)).to.deep.equal([]);
  });

  it('refuses missing or wrong signatures, stale or future timestamps, unknown subscriptions and bodies that are not JSON; a delivery sent again counts once', async () => {
    const wf = await triggerWorkflow('ACTIVE');
    const before = await outboxCount();
    const body = '{"subject":"Hello"}';
    const t = now();
    const refused = [
      [await deliver(wf.subscriptionId, body, {}), 401, /Missing X-Agentry-Timestamp/],
      [await deliver(wf.subscriptionId, body, { 'x-agentry-timestamp': String(t) }), 401, /Missing X-Agentry-Signature/],
      [
        await deliver(wf.subscriptionId, body, { 'x-agentry-timestamp': String(t), 'x-agentry-signature': sign('wrong', t, body) }),
        401,
        /does not match/,
      ],
      // Signed for another body: the signature covers the bytes as sent.
      [
        await deliver(wf.subscriptionId, body, {
          'x-agentry-timestamp': String(t),
          'x-agentry-signature': sign(secretOf(wf.subscriptionId), t, '{}'),
        }),
        401,
        /does not match/,
      ],
      // A delivery signed with another subscription's secret.
      [
        await deliver(wf.subscriptionId, body, { 'x-agentry-timestamp': String(t), 'x-agentry-signature': sign(secretOf('tsub_other'), t, body) }),
        401,
        /does not match/,
      ],
      [await deliver(wf.subscriptionId, body, { 'x-agentry-timestamp': 'yesterday', 'x-agentry-signature': 'v1=00' }), 401, /unix time/],
      // Outside the 5-minute window however long the requests before took on a busy machine (timestamps taken now).
      [await deliver(wf.subscriptionId, body, undefined, now() - 330), 401, /replayed/],
      [await deliver(wf.subscriptionId, body, undefined, now() + 330), 401, /replayed/],
      [await deliver('tsub_00000000000000000000000000000000', body), 404, /not found/],
      [await deliver('not-an-id', body), 404, /not found/],
      [await deliver(wf.subscriptionId, 'subject=Hello'), 400, /not JSON/],
      [await deliver(wf.subscriptionId, ''), 400, /empty/],
    ] as const;
    for (const [res, status, message] of refused) {
      expect(res.status, res.text).to.equal(status);
      expect(res.body.message).to.match(message);
    }
    expect(await outboxCount(), 'refused deliveries record nothing').to.equal(before);

    // The same signed delivery sent again inside the window (a provider retry, a replay) answers the first event;
    // once its timestamp is over 5 minutes old it is refused, and its receipt is pruned after the window.
    const sentAt = now() - 290;
    const headers = { 'x-agentry-timestamp': String(sentAt), 'x-agentry-signature': sign(secretOf(wf.subscriptionId), sentAt, body) };
    const first = await deliver(wf.subscriptionId, body, headers);
    expect(first.status, first.text).to.equal(202);
    const again = await Promise.all([deliver(wf.subscriptionId, body, headers), deliver(wf.subscriptionId, body, headers)]);
    expect(again.map((r) => [r.status, r.body.eventId])).to.deep.equal([
      [202, first.body.eventId],
      [202, first.body.eventId],
    ]);
    expect(await outboxCount()).to.equal(before + 1);
    const later = await deliver(wf.subscriptionId, body, undefined, sentAt - 20);
    expect(later.status, later.text).to.equal(401);
    const knex = harness().orm.em.getKnex();
    const receipts = async () =>
      Number((await knex.raw('select count(*) from trigger_delivery_receipts where subscription_id = ?', [wf.subscriptionId])).rows[0].count);
    expect(await receipts()).to.equal(1);
    expect(await pruneDeliveryReceipts(knex, new Date(Date.now() + 5 * 60_000))).to.equal(0);
    expect(await pruneDeliveryReceipts(knex, new Date(Date.now() + 11 * 60_000))).to.be.at.least(1);
    expect(await receipts()).to.equal(0);
  });

  it('an Idempotency-Key makes deliveries signed anew count once per subscription; other bytes with the key are a 409', async () => {
    const [one, two] = [await triggerWorkflow('ACTIVE'), await triggerWorkflow('ACTIVE')];
    const body = '{"subject":"Invoice","id":1}';
    const key = { 'Idempotency-Key': 'mail-1' };
    const first = await deliver(one.subscriptionId, body, undefined, now(), key);
    expect([first.status, first.replayed], first.text).to.deep.equal([202, null]);
    // Retries signed anew (other timestamps, so other signatures), some at once: the first event, no second run.
    const retries = await Promise.all([1, 2, 3, 4].map((ago) => deliver(one.subscriptionId, body, undefined, now() - ago, key)));
    expect(retries.map((r) => [r.status, r.body.eventId, r.replayed])).to.deep.equal(Array(4).fill([202, first.body.eventId, 'true']));
    // The raw bytes are compared: the same JSON with its keys in another order is another body.
    const reordered = await deliver(one.subscriptionId, '{"id":1,"subject":"Invoice"}', undefined, now(), key);
    expect([reordered.status, reordered.body.code, reordered.body.details.issues[0].path]).to.deep.equal([
      409,
      'conflict',
      'headers.Idempotency-Key',
    ]);
    const elsewhere = await deliver(two.subscriptionId, body, undefined, now(), key);
    expect(elsewhere.status, elsewhere.text).to.equal(202);
    expect(elsewhere.body.eventId).to.not.equal(first.body.eventId);
    for (const wf of [one, two]) {
      await waitUntil(
        () => ledgerRuns(wf.id),
        (runs) => runs.length === 1 && runs[0]!.status !== 'running',
        `the run of ${wf.id}`,
      );
    }
    // Past 24 hours the key is free again.
    await harness()
      .orm.em.getKnex()
      .raw(`update idempotency_keys set created_at = now() - interval '25 hours' where scope = ?`, [`subscription:${one.subscriptionId}`]);
    // (Signed at another second than the first: the same signature would be answered from its receipt.)
    const later = await deliver(one.subscriptionId, body, undefined, now() - 10, key);
    expect([later.status, later.replayed]).to.deep.equal([202, null]);
    expect(later.body.eventId).to.not.equal(first.body.eventId);
    // The freed key started one more run of the first workflow, and nothing else ran.
    const eventIds = async (workflowId: number) => (await ledgerRuns(workflowId)).map((r) => r.event_id);
    const settled = await quiet(async () => ({ one: await eventIds(one.id), two: await eventIds(two.id) }), {
      busy: [undispatchedEvents(a.account.id), openRuns({ accountId: a.account.id })],
      what: 'the runs of both workflows',
    });
    expect(settled).to.deep.equal({ one: [first.body.eventId, later.body.eventId], two: [elsewhere.body.eventId] });
  });

  it('the index follows node edits, node deletion and workflow deletion', async () => {
    const wf = await triggerWorkflow('ACTIVE');
    const updated = await req('PUT', `/workflows/${wf.id}/nodes/${wf.nodeId}`, { body: gmailNode('IMPORTANT') });
    expect(updated.status, updated.text).to.equal(200);
    const second = lastSubscription().subscriptionId;
    expect(second).to.not.equal(wf.subscriptionId);
    const rows = await indexRows(wf.id);
    expect(rows.map((r) => [r.id, r.node_id, r.provider_subscription_id])).to.deep.equal([
      [second, wf.nodeId, updated.body.nodes[0].data.connectedAccountTriggerId],
    ]);
    expect((await deliver(wf.subscriptionId, '{}')).status, 'the replaced subscription').to.equal(404);
    const res = await deliver(second, '{"n":2}');
    expect(res.status, res.text).to.equal(202);
    const run = await eventually(() => runResult(`automation:${wf.id}:event-${res.body.eventId}`).catch(() => undefined), 'run of the edited node');
    expect(run.successful).to.equal(true);

    expect((await req('DELETE', `/workflows/${wf.id}/nodes/${wf.nodeId}`)).status).to.equal(200);
    expect(await indexRows(wf.id)).to.deep.equal([]);
    expect((await deliver(second, '{}')).status, 'the deleted node').to.equal(404);

    const other = await triggerWorkflow('ACTIVE');
    expect(await indexRows(other.id)).to.have.length(1);
    expect((await req('DELETE', `/workflows/${other.id}`)).status).to.equal(204);
    expect(await indexRows(other.id)).to.deep.equal([]);
    expect((await deliver(other.subscriptionId, '{}')).status, 'the deleted workflow').to.equal(404);
  });

  it('is rate-limited per subscription like webhook calls', async () => {
    const h = harness();
    const limited = await listen({
      config: {
        publicBaseUrl: PUBLIC_BASE,
        bodyLimitBytes: 64 * 1024,
        taskQueue: h.taskQueue,
        triggerSigningKey: SIGNING_KEY,
        rateLimits: { perKey: null, perWebhook: { perSecond: 1, burst: 2 } },
      },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await fetch(`${limited.origin}/trigger-deliveries/tsub_00000000000000000000000000000001`, { method: 'POST', body: '{}' });
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).to.be.at.least(1);
      }
      expect(statuses).to.deep.equal([401, 401, 429]);
    } finally {
      await new Promise((resolve) => limited.server.close(resolve));
    }
  });
});
