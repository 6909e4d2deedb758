import { expect } from 'chai';
import { admin } from '../setup/admin-cli.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { awaitRun, eventually } from '../setup/runs.js';
import { activeChain } from './active-automations.helpers.js';

interface EventRow {
  attempts: number;
  last_error: string | null;
  dispatched_at: Date | null;
  dead_lettered_at: Date | null;
}

async function eventRow(id: string): Promise<EventRow> {
  return (await harness().orm.em.getKnex().raw('select attempts, last_error, dispatched_at, dead_lettered_at from outbox_events where id = ?', [id]))
    .rows[0];
}

describe('outbox events whose dispatch fails (poison events)', function () {
  this.timeout(60_000);

  it('are retried with backoff and parked after their attempts, while the events around them run; the admin command requeues them', async () => {
    const { account, userKey: key } = await newAccount();
    const hook = (await call('POST', '/incoming-webhooks', { key, body: { name: 'Shop', useAuthentication: false } })).body;
    const live = await activeChain(key, 'On call', [
      { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in', triggerByWebhookIds: [hook.id] } },
    ]);

    // An event Temporal refuses to start a run for: its body makes the run input larger than Temporal's 2 MB payload limit.
    const knex = harness().orm.em.getKnex();
    const huge = { blob: 'x'.repeat(3 * 1024 * 1024) };
    const before = await call('POST', `/webhooks/${hook.id}`, { baseUrl: harness().origin, body: { n: 1 } });
    const poison = String(
      (
        await knex.raw(
          `insert into outbox_events (account_id, type, payload, created_at) values (?, 'INCOMING_WEBHOOK', ?::json, now()) returning id`,
          [account.id, JSON.stringify({ webhookId: hook.id, body: huge })],
        )
      ).rows[0].id,
    );
    const after = await call('POST', `/webhooks/${hook.id}`, { baseUrl: harness().origin, body: { n: 2 } });

    for (const res of [before, after]) {
      const run = await awaitRun(`automation:${live.id}:event-${res.body.eventId}`);
      expect(run.successful, JSON.stringify(run.error)).to.equal(true);
    }
    const parked = await eventually(async () => {
      const row = await eventRow(poison);
      return row.dead_lettered_at ? row : undefined;
    }, 'the poison event to be parked');
    expect(parked.attempts).to.equal(3);
    expect(parked.dispatched_at).to.equal(null);
    expect(parked.last_error).to.match(/carries at most|size|limit/i);

    const listed = await admin('outbox', '--json');
    expect(listed.code, listed.stderr).to.equal(0);
    const entry = JSON.parse(listed.stdout).parked.find((e: { id: string }) => e.id === poison);
    expect(entry).to.include({ accountId: account.id, type: 'INCOMING_WEBHOOK', attempts: 3 });

    const requeued = await admin('outbox', '--requeue', poison, '--json');
    expect(JSON.parse(requeued.stdout)).to.deep.equal({ requeued: 1 });
    // Back in the queue with a fresh count: it is tried again (and, still too large, parked again).
    const again = await eventually(async () => {
      const row = await eventRow(poison);
      return row.dead_lettered_at && row.attempts === 3 ? row : undefined;
    }, 'the requeued event to be tried again');
    expect(again.last_error).to.match(/carries at most|size|limit/i);
  });
});
