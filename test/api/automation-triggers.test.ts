import { expect } from 'chai';
import { recordConversationEvent, recordExternalTriggerDelivery } from '../../db/automations/events.service.js';
import { newSubscriptionId, updateSubscriptionIndex } from '../../db/automations/trigger-subscriptions.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { openRuns, quiet, undispatchedEvents } from '../setup/quiet.js';
import { awaitRun, eventually, ledgerRuns, runResult } from '../setup/runs.js';
import { activeChain, newTable, patchLiveNode, rowsOf } from './active-automations.helpers.js';

async function endedRuns(workflowId: number, count: number) {
  return eventually(async () => {
    const runs = await ledgerRuns(workflowId);
    return runs.length >= count && runs.every((r) => r.status !== 'running') ? runs : undefined;
  }, `${count} ended runs of workflow ${workflowId}`);
}

const webhookNode = (webhookId: string) => ({ type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in', triggerByWebhookIds: [webhookId] } });
const createRow = (tableId: number, rowData: Record<string, string>) => ({ type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData } });

describe('automation triggers through the outbox', function () {
  this.timeout(60_000);

  it('an incoming webhook call starts every ACTIVE workflow subscribed to it, with the body as {trigger_payload}, once', async () => {
    const { userKey: key, account } = await newAccount();
    const tableId = await newTable(key, 'orders', ['Ref']);
    const hook = (await call('POST', '/incoming-webhooks', { key, body: { name: 'Shop', useAuthentication: false } })).body;
    const live = await activeChain(key, 'On order', [webhookNode(hook.id), createRow(tableId, { Ref: '{trigger_payload}' })]);
    const draft = await activeChain(key, 'Not active', [webhookNode(hook.id), createRow(tableId, { Ref: 'draft' })], 'DRAFT');

    const res = await call('POST', `/webhooks/${hook.id}`, { baseUrl: harness().origin, body: { order: 7 } });
    expect(res.status, res.text).to.equal(202);
    const runId = `automation:${live.id}:event-${res.body.eventId}`;
    const run = await awaitRun(runId);
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.nodeResults.map((r) => r.type)).to.deep.equal(['WEBHOOK', 'DYNAMIC_TABLES']);
    const rows = await rowsOf(key, 'orders');
    expect(rows).to.have.length(1);
    expect(JSON.parse(rows[0]!.data.Ref as string)).to.deep.equal({ order: 7 });

    const workflow = (await call('GET', `/workflows/${live.id}`, { key })).body;
    expect(workflow.runsCount).to.equal(1);
    expect(workflow.runsFailedCount).to.equal(0);
    expect(Date.parse(workflow.lastRunDate)).to.be.closeTo(Date.now(), 60_000);
    expect(await ledgerRuns(draft.id)).to.deep.equal([]);
    expect((await ledgerRuns(live.id)).map((r) => [r.trigger_type, r.event_id])).to.deep.equal([['INCOMING_WEBHOOK', res.body.eventId]]);

    // Redelivery (the event handed to Temporal again, as after a crash before it was marked) starts no second run.
    const knex = harness().orm.em.getKnex();
    await knex.raw('update outbox_events set dispatched_at = null where id = ?', [res.body.eventId]);
    await harness().dispatcher.dispatchOnce();
    await eventually(
      async () =>
        (await knex.raw('select dispatched_at from outbox_events where id = ?', [res.body.eventId])).rows[0].dispatched_at ? true : undefined,
      'redispatch',
    );
    const settled = await quiet(async () => ({ runs: (await ledgerRuns(live.id)).length, rows: (await rowsOf(key, 'orders')).length }), {
      busy: [undispatchedEvents(account.id), openRuns({ accountId: account.id })],
      what: 'the redelivered event',
    });
    expect(settled).to.deep.equal({ runs: 1, rows: 1 });
    expect((await call('GET', `/workflows/${live.id}`, { key })).body.runsCount).to.equal(1);
  });

  it('row events start the workflows watching that table, and a cycle A → B → A is stopped as prevented_loop', async () => {
    const { userKey: key } = await newAccount();
    const ping = await newTable(key, 'ping', ['Note']);
    const pong = await newTable(key, 'pong', ['Note']);
    const a = await activeChain(key, 'Ping to pong', [
      { type: 'TRIGGER', data: { triggerType: 'TABLE_ROW_CREATED', triggeredByTableId: ping } },
      createRow(pong, { Note: 'from A' }),
    ]);
    const b = await activeChain(key, 'Pong to ping', [
      { type: 'TRIGGER', data: { triggerType: 'TABLE_ROW_CREATED', triggeredByTableId: pong } },
      createRow(ping, { Note: 'from B' }),
    ]);
    const updates = await activeChain(
      key,
      'Ping updates',
      [{ type: 'TRIGGER', data: { triggerType: 'TABLE_ROW_UPDATED', triggeredByTableId: ping } }, createRow(pong, { Note: 'updated' })],
      'DRAFT',
    );

    expect((await call('POST', '/tables/ping/rows', { key, body: { Note: 'seed' } })).status).to.equal(201);
    const runsOfA = await endedRuns(a.id, 2);
    const runsOfB = await endedRuns(b.id, 1);
    expect(runsOfA.map((r) => [r.status, r.prevented_loop])).to.deep.equal([
      ['successful', false],
      ['failed', true],
    ]);
    expect(runsOfB.map((r) => [r.status, r.prevented_loop])).to.deep.equal([['successful', false]]);
    const stopped = await runResult(runsOfA[1]!.id);
    expect(stopped.preventedLoop).to.equal(true);
    expect(stopped.nodeResults).to.deep.equal([]);
    expect(stopped.error!.message).to.match(new RegExp(`Loop prevented: workflow ${a.id} .*${a.id} → ${b.id} → ${a.id}`));

    expect((await rowsOf(key, 'ping')).map((r) => r.data.Note).sort()).to.deep.equal(['from B', 'seed']);
    expect((await rowsOf(key, 'pong')).map((r) => r.data.Note)).to.deep.equal(['from A']);
    const counters = (await call('GET', `/workflows/${a.id}`, { key })).body;
    expect([counters.runsCount, counters.runsFailedCount]).to.deep.equal([2, 1]);
    expect(await ledgerRuns(updates.id)).to.deep.equal([]);
  });

  it('a row change no ACTIVE workflow could start is written already dispatched; one a trigger type listens to waits for the dispatcher', async () => {
    const { account, userKey: key } = await newAccount();
    const notes = await newTable(key, 'notes', ['Note']);
    const heard = await newTable(key, 'heard', ['Note']);
    const events = async () =>
      (
        await harness()
          .orm.em.getKnex()
          .raw(`select type, dispatched_at is not null as dispatched from outbox_events where account_id = ? order by id`, [account.id])
      ).rows;
    // A draft workflow listening to the table does not count, nor does an ACTIVE one listening to updates only.
    await activeChain(
      key,
      'Draft',
      [{ type: 'TRIGGER', data: { triggerType: 'TABLE_ROW_CREATED', triggeredByTableId: notes } }, createRow(notes, { Note: 'x' })],
      'DRAFT',
    );
    await activeChain(key, 'Updates', [
      { type: 'TRIGGER', data: { triggerType: 'TABLE_ROW_UPDATED', triggeredByTableId: notes } },
      createRow(notes, { Note: 'y' }),
    ]);
    expect((await call('POST', '/tables/notes/rows', { key, body: { Note: 'unheard' } })).status).to.equal(201);
    // Read at once, before any dispatcher pass could have run.
    expect(await events()).to.deep.equal([{ type: 'TABLE_ROW_CREATED', dispatched: true }]);

    const listener = await activeChain(key, 'Creations', [
      { type: 'TRIGGER', data: { triggerType: 'TABLE_ROW_CREATED', triggeredByTableId: notes } },
      createRow(heard, { Note: 'heard' }),
    ]);
    expect((await call('POST', '/tables/notes/rows', { key, body: { Note: 'seed' } })).status).to.equal(201);
    const runs = await eventually(async () => {
      const ended = (await ledgerRuns(listener.id)).filter((r) => r.status !== 'running');
      return ended.length ? ended : undefined;
    }, 'the run of the listening workflow');
    expect(runs.map((r) => r.status)).to.deep.equal(['successful']);
    // The unheard row started nothing, though a listener exists now.
    expect((await rowsOf(key, 'heard')).map((r) => r.data.Note)).to.deep.equal(['heard']);
  });

  it('record events match the Object and record type; contact events fire for People', async () => {
    const { userKey: key, account } = await newAccount();
    const log = await newTable(key, 'log', ['What']);
    const people = (await call('GET', '/objects/people', { key })).body;
    const types = (await call('GET', '/objects/people/record-types', { key })).body.agentry;
    const vip = (await call('POST', '/objects/people/record-types', { key, body: { name: 'VIP' } })).body;
    const defaultType = types.find((t: { isDefault: boolean }) => t.isDefault);
    const onVip = await activeChain(key, 'VIP created', [
      { type: 'TRIGGER', data: { triggerType: 'OBJECT_RECORD_CREATED', triggeredByTableId: people.id, triggeredByRecordTypeId: vip.id } },
      createRow(log, { What: 'vip' }),
    ]);
    const onContact = await activeChain(key, 'Contact created', [
      { type: 'TRIGGER', data: { triggerType: 'CONTACT_CREATED' } },
      createRow(log, { What: 'contact' }),
    ]);

    expect((await call('POST', '/objects/people/rows', { key, body: { recordTypeId: defaultType.id } })).status).to.equal(201);
    expect((await call('POST', '/objects/people/rows', { key, body: { recordTypeId: vip.id } })).status).to.equal(201);
    expect(await endedRuns(onContact.id, 2)).to.have.length(2);
    const vipRuns = await endedRuns(onVip.id, 1);
    const settled = await quiet(async () => (await ledgerRuns(onVip.id)).length, {
      busy: [undispatchedEvents(account.id), openRuns({ accountId: account.id })],
      what: 'the runs of the record events',
    });
    expect(settled).to.equal(1);
    expect(vipRuns[0]!.trigger_type).to.equal('OBJECT_RECORD_CREATED');
    expect((await rowsOf(key, 'log')).map((r) => r.data.What).sort()).to.deep.equal(['contact', 'contact', 'vip']);
  });

  it('conversation events and third-party deliveries start the workflows whose TRIGGER matches them', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const log = await newTable(key, 'log', ['What']);
    const agentId = '6f1c2a7e-3b7d-4a43-9a57-0f7b9f0e2d11';
    const ended = await activeChain(key, 'Conversation ended', [
      { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_ENDED' } },
      createRow(log, { What: '{trigger_payload}' }),
    ]);
    const otherAgent = await activeChain(key, 'Other agent', [
      { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_ENDED' } },
      createRow(log, { What: 'other' }),
    ]);
    // Agents arrive in a later version: their ids are written into the live graphs directly.
    await patchLiveNode(ended.id, ended.nodeIds[0]!, { triggeredByAgentIds: [agentId] });
    await patchLiveNode(otherAgent.id, otherAgent.nodeIds[0]!, { triggeredByAgentIds: ['00000000-0000-4000-8000-000000000000'] });
    const external = await activeChain(key, 'New email', [
      { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_IDLE' } },
      createRow(log, { What: 'email' }),
    ]);
    await patchLiveNode(external.id, external.nodeIds[0]!, { triggerType: 'EXTERNAL_TRIGGER', connectedAccountTriggerId: 'sub_123' });
    const em = harness().orm.em.fork();
    // The index of subscriptions, as saving the node through a trigger provider would have written it.
    const subscription = { id: newSubscriptionId(), accountId: a.account.id, automationId: external.id, nodeId: external.nodeIds[0]! };
    await updateSubscriptionIndex(em, { add: { ...subscription, providerSubscriptionId: 'sub_123' } });

    const { eventId } = await recordConversationEvent(em, a.account.id, {
      type: 'CONVERSATION_ENDED',
      agentId,
      conversationId: 'c-1',
      details: { rating: 5 },
    });
    const run = await awaitRun(`automation:${ended.id}:event-${eventId}`);
    expect(run.successful).to.equal(true);
    const delivery = await recordExternalTriggerDelivery(em, 'sub_123', { subject: 'Hello' });
    expect((await awaitRun(`automation:${external.id}:event-${delivery.eventId}`)).successful).to.equal(true);

    const whats = (await rowsOf(key, 'log')).map((r) => r.data.What as string);
    expect(whats).to.have.length(2);
    expect(whats).to.include('email');
    expect(JSON.parse(whats.find((w) => w !== 'email')!)).to.deep.equal({ rating: 5, agentId, conversationId: 'c-1' });
    expect(await ledgerRuns(otherAgent.id)).to.deep.equal([]);
    await expectRejected(recordExternalTriggerDelivery(em, 'sub_unknown', {}), /No EXTERNAL_TRIGGER node subscribes to sub_unknown/);
  });
});

async function expectRejected(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error?.message).to.match(message);
}
