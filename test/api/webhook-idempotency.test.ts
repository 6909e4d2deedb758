/**
 * `Idempotency-Key` on inbound webhook calls through real HTTP, with an ACTIVE workflow subscribed so runs are
 * counted: a replay (one after another or 8 at once) answers the first event and starts one run; another body with the
 * key is a 409; keys are per webhook; an expired key starts a new run and the sweep deletes it.
 */
import { expect } from 'chai';
import { pruneIdempotencyKeys } from '../../db/automations/idempotency-keys.js';
import { harness } from '../setup/harness.js';
import { call, newAccount, type CallResult } from '../setup/http.js';
import { openRuns, quiet, undispatchedEvents } from '../setup/quiet.js';
import { eventually, ledgerRuns } from '../setup/runs.js';
import { activeChain, newTable, rowsOf } from './active-automations.helpers.js';

const knex = () => harness().orm.em.getKnex();

const deliver = (webhookId: string, body: unknown, key?: string): Promise<CallResult> =>
  call('POST', `/webhooks/${webhookId}`, { baseUrl: harness().origin, body, headers: key === undefined ? {} : { 'Idempotency-Key': key } });

const eventsOf = async (webhookId: string): Promise<string[]> =>
  (await knex().raw(`select id from outbox_events where type = 'INCOMING_WEBHOOK' and payload->>'webhookId' = ? order by id`, [webhookId])).rows.map(
    (r: { id: string }) => String(r.id),
  );

const keyRows = async (scope: string) =>
  (await knex().raw('select key, event_id, response_status from idempotency_keys where scope = ? order by key', [scope])).rows as {
    key: string;
    event_id: string;
    response_status: number;
  }[];

function accepted(res: CallResult, replayed: boolean): string {
  expect(res.status, res.text).to.equal(202);
  expect(res.headers.get('idempotent-replayed')).to.equal(replayed ? 'true' : null);
  return res.body.eventId as string;
}

describe('Idempotency-Key on POST /webhooks/{webhookId}', function () {
  this.timeout(60_000);
  let key: string;
  let accountId: number;
  let tableName: string;
  let counter = 0;

  /** A webhook without a token and an ACTIVE workflow that adds a row to `tableName` per run. */
  async function subscribedWebhook(): Promise<{ id: string; workflowId: number }> {
    const hook = (await call('POST', '/incoming-webhooks', { key, body: { name: `Hook ${++counter}`, useAuthentication: false } })).body;
    const tableId = (await call('GET', `/tables/${tableName}`, { key })).body.id;
    const workflow = await activeChain(key, `On hook ${counter}`, [
      { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in', triggerByWebhookIds: [hook.id] } },
      { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData: { Ref: `${hook.id} {trigger_payload}` } } },
    ]);
    return { id: hook.id, workflowId: workflow.id };
  }

  /** Waits for `count` ended runs of the workflow, then until nothing more comes (an extra run is answered too). */
  async function runsOf(workflowId: number, count: number): Promise<string[]> {
    const eventIds = async () => (await ledgerRuns(workflowId)).map((r) => r.event_id!);
    await eventually(async () => {
      const runs = await ledgerRuns(workflowId);
      return runs.length >= count && runs.every((r) => r.status !== 'running') ? runs : undefined;
    }, `${count} runs of workflow ${workflowId}`);
    return quiet(eventIds, {
      busy: [undispatchedEvents(accountId), openRuns({ automationId: workflowId })],
      what: `the runs of workflow ${workflowId}`,
    });
  }

  before(async () => {
    const a = await newAccount();
    [key, accountId] = [a.userKey, a.account.id];
    tableName = 'idempotent';
    await newTable(key, tableName, ['Ref']);
  });

  it('answers a replay with the same status and event id, starts one run, and compares bodies as JSON', async () => {
    const hook = await subscribedWebhook();
    const first = accepted(await deliver(hook.id, { order: 7, lines: [1, 2] }, 'order-7'), false);
    const again = accepted(await deliver(hook.id, { lines: [1, 2], order: 7 }, 'order-7'), true);
    expect(again).to.equal(first);
    expect(await eventsOf(hook.id)).to.deep.equal([first]);
    expect(await runsOf(hook.workflowId, 1)).to.deep.equal([first]);
    expect((await rowsOf(key, tableName)).filter((r) => String(r.data.Ref).startsWith(hook.id))).to.have.length(1);
    expect(await keyRows(`webhook:${hook.id}`)).to.deep.equal([{ key: 'order-7', event_id: first, response_status: 202 }]);
  });

  it('8 concurrent calls with one key record one event and start one run (three bursts)', async () => {
    const hook = await subscribedWebhook();
    const events: string[] = [];
    for (const burst of ['burst-1', 'burst-2', 'burst-3']) {
      const answers = await Promise.all(Array.from({ length: 8 }, () => deliver(hook.id, { burst }, burst)));
      expect(answers.map((r) => r.status)).to.deep.equal(Array(8).fill(202));
      const ids = new Set(answers.map((r) => r.body.eventId as string));
      expect(ids.size, JSON.stringify([...ids])).to.equal(1);
      expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).to.have.length(7);
      events.push(...ids);
    }
    expect(await eventsOf(hook.id)).to.deep.equal(events);
    expect((await runsOf(hook.workflowId, 3)).sort()).to.deep.equal([...events].sort());
  });

  it('answers 409 naming the header for the same key with another body, and records nothing', async () => {
    const hook = await subscribedWebhook();
    const first = accepted(await deliver(hook.id, { order: 9 }, 'order-9'), false);
    const res = await deliver(hook.id, { order: 10 }, 'order-9');
    expect(res.status, res.text).to.equal(409);
    expect(res.body.code).to.equal('conflict');
    expect(res.body.message).to.contain('Idempotency-Key');
    expect(res.body.details.issues[0].path).to.equal('headers.Idempotency-Key');
    expect(await eventsOf(hook.id)).to.deep.equal([first]);
    expect(accepted(await deliver(hook.id, { order: 9 }, 'order-9'), true)).to.equal(first);
  });

  it('starts a run per key, and a run per call without a key', async () => {
    const hook = await subscribedWebhook();
    const ids = [
      accepted(await deliver(hook.id, { order: 1 }, 'a'), false),
      accepted(await deliver(hook.id, { order: 1 }, 'b'), false),
      accepted(await deliver(hook.id, { order: 1 }), false),
      accepted(await deliver(hook.id, { order: 1 }), false),
    ];
    expect(new Set(ids).size).to.equal(4);
    expect((await runsOf(hook.workflowId, 4)).sort()).to.deep.equal([...ids].sort());
  });

  it('keeps the keys of two webhooks apart', async () => {
    const [one, two] = [await subscribedWebhook(), await subscribedWebhook()];
    const first = accepted(await deliver(one.id, { order: 1 }, 'shared'), false);
    const second = accepted(await deliver(two.id, { order: 2 }, 'shared'), false);
    expect(second).to.not.equal(first);
    expect(await runsOf(one.workflowId, 1)).to.deep.equal([first]);
    expect(await runsOf(two.workflowId, 1)).to.deep.equal([second]);
  });

  it('refuses an empty key or one over 255 characters with 400 naming the header, before recording anything', async () => {
    const hook = await subscribedWebhook();
    for (const bad of ['', 'x'.repeat(256), 'with space']) {
      const res = await deliver(hook.id, { order: 1 }, bad);
      expect(res.status, `${bad.length}: ${res.text}`).to.equal(400);
      expect(res.body.details.issues[0].path).to.equal('headers.Idempotency-Key');
    }
    expect(await eventsOf(hook.id)).to.deep.equal([]);
    accepted(await deliver(hook.id, { order: 1 }, 'x'.repeat(255)), false);
  });

  it('remembers nothing of a refused call: the right token with the same key is a first call', async () => {
    const hook = (await call('POST', '/incoming-webhooks', { key, body: { name: 'Guarded' } })).body;
    const headers = (token: string) => ({ 'Idempotency-Key': 'guarded', authorization: `Bearer ${token}` });
    const refused = await call('POST', `/webhooks/${hook.id}`, { baseUrl: harness().origin, body: { a: 1 }, headers: headers('wrong') });
    expect(refused.status).to.equal(401);
    const res = await call('POST', `/webhooks/${hook.id}`, { baseUrl: harness().origin, body: { a: 2 }, headers: headers(hook.accessToken) });
    accepted(res, false);
  });

  it('after 24 hours a key starts a new run, and the sweep deletes it', async () => {
    const hook = await subscribedWebhook();
    const scope = `webhook:${hook.id}`;
    const first = accepted(await deliver(hook.id, { order: 1 }, 'old'), false);
    accepted(await deliver(hook.id, { order: 1 }, 'fresh'), false);
    await knex().raw(`update idempotency_keys set created_at = now() - interval '24 hours 1 second' where scope = ? and key = 'old'`, [scope]);
    const second = accepted(await deliver(hook.id, { order: 2 }, 'old'), false);
    expect(second).to.not.equal(first);
    expect((await runsOf(hook.workflowId, 3)).filter((id) => id === first || id === second)).to.have.length(2);

    await knex().raw(`update idempotency_keys set created_at = now() - interval '25 hours' where scope = ? and key = 'old'`, [scope]);
    expect(await pruneIdempotencyKeys(knex())).to.be.at.least(1);
    expect((await keyRows(scope)).map((r) => r.key)).to.deep.equal(['fresh']);
    expect(await pruneIdempotencyKeys(knex(), new Date(Date.now() + 24 * 3_600_000 + 1000))).to.be.at.least(1);
    expect(await keyRows(scope)).to.deep.equal([]);
  });

  it('documents the header on the webhook and trigger delivery calls', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    for (const path of ['/webhooks/{webhookId}', '/trigger-deliveries/{subscriptionId}']) {
      const parameter = doc.paths[path].post.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key');
      expect(parameter, path).to.include({ in: 'header', required: false });
      expect(parameter.schema.maxLength).to.equal(255);
      expect(doc.paths[path].post.responses).to.have.property('409');
    }
  });
});
