/**
 * agentry on a real Temporal cluster (`npm run cluster`'s topology: frontend, two history, matching, internal worker
 * as separate server processes on PostgreSQL), on ports and databases of this test's own. The first run on a machine
 * builds the server binaries (`.tools/bin`, minutes).
 */
import type { Client } from '@temporalio/client';
import { expect } from 'chai';
import { INCOMING_WEBHOOK_EVENT } from '../../db/automations/incoming-webhooks.service.js';
import { connectTemporal } from '../../integrations/temporal/client.js';
import { harness, harnessCluster } from '../setup/harness.js';
import { startTestCluster, type TestCluster } from '../setup/cluster.js';
import { call } from '../setup/http.js';
import { waitUntil } from '../setup/runs.js';
import { hookedWorkflow, newRig, tableWorkflow, startWorker, type Rig, type WorkerProcess } from './processes.js';

/** How long the whole cluster stays down in the outage test. */
const OUTAGE_MS = 15_000;

describe('runs on a Temporal cluster of separate server processes (real processes)', function () {
  this.timeout(900_000);
  let cluster: TestCluster;
  let client: Client;
  let rig: Rig;
  const workers: WorkerProcess[] = [];

  before(async () => {
    // With TEST_TEMPORAL=cluster the suite already runs on one: a second would exceed PostgreSQL's connections.
    cluster = harnessCluster() ?? (await startTestCluster(harness().databaseUrl));
    client = await connectTemporal({ address: cluster.address, namespace: 'default' });
    rig = await newRig(client);
    for (let i = 0; i < 2; i += 1) workers.push(await startWorker(rig.plant, cluster.address));
  });

  after(async () => {
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    await rig?.close();
    await client?.connection.close();
    if (cluster !== harnessCluster()) await cluster?.stop();
  });

  /** Posts `count` webhooks to `hookId` from 20 callers at once; each must be accepted. */
  async function sendWebhooks(hookId: string, count: number): Promise<void> {
    let sent = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (sent < count) {
          sent += 1;
          const res = await call('POST', `/webhooks/${hookId}`, { baseUrl: rig.api.origin, body: { n: sent } });
          expect(res.status, res.text).to.equal(202);
        }
      }),
    );
  }

  const knex = () => rig.plant.orm.em.getKnex();
  const ended = async (id: number) =>
    Number((await knex().raw(`select count(*) from workflow_runs where workflow_id = ? and status <> 'running'`, [id])).rows[0].count);

  /** Every run of workflow `id` succeeded once per webhook to `hookId`, each event was dispatched, one row per run. */
  async function expectEachRunOnce(id: number, hookId: string, table: string, count: number): Promise<void> {
    const runs = await knex().raw(`select status, count(*)::int as n from workflow_runs where workflow_id = ? group by status`, [id]);
    expect(runs.rows).to.deep.equal([{ status: 'successful', n: count }]);
    const outbox = await knex().raw(
      `select count(*)::int as n, count(dispatched_at)::int as dispatched from outbox_events where type = ? and payload->>'webhookId' = ?`,
      [INCOMING_WEBHOOK_EVENT, hookId],
    );
    expect(outbox.rows[0]).to.deep.equal({ n: count, dispatched: count });
    const rows = await call('POST', `/tables/${table}/rows/count`, { key: rig.key, baseUrl: `${rig.api.origin}/public/v1`, body: {} });
    expect(rows.body.count).to.equal(count);
  }

  it('a history process killed with SIGKILL in the middle of a 1,000-run burst: every run completes exactly once', async () => {
    const burst = Number(process.env.CLUSTER_BURST ?? 1000);
    const { id, hookId } = await hookedWorkflow(rig, 'burst', [{ type: 'DYNAMIC_TABLES', data: { action: 'CREATE', rowData: { Step: 'done' } } }]);
    const sending = sendWebhooks(hookId, burst);
    await waitUntil(
      () => ended(id),
      (n) => n >= burst / 5,
      'a fifth of the burst to end',
      300_000,
    );
    process.kill(cluster.supervisor.pid('temporal-history-1')!, 'SIGKILL');
    await sending;
    await waitUntil(
      () => ended(id),
      (n) => n >= burst,
      'every run of the burst to end',
      600_000,
    );

    expect(cluster.events.join('\n')).to.match(/temporal-history-1 exited unexpectedly \(SIGKILL\)/);
    expect(cluster.events.join('\n')).to.match(/temporal-history-1 restarted/);
    await expectEachRunOnce(id, hookId, 'burst', burst);
  });

  it('the whole cluster stopped and started again during a burst: webhooks wait in the outbox, nothing runs twice, schedules fire again', async () => {
    const burst = Number(process.env.CLUSTER_RESTART_BURST ?? 400);
    const tick = { type: 'SCHEDULED_TRIGGER', data: { cronExpression: '* * * * *', timezone: 'UTC', startTime: null, endTime: null } };
    const scheduled = await tableWorkflow(rig, 'ticks', [tick, { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', rowData: { Step: 'tick' } } }]);
    const { id, hookId } = await hookedWorkflow(rig, 'outage', [{ type: 'DYNAMIC_TABLES', data: { action: 'CREATE', rowData: { Step: 'done' } } }]);
    const servers = cluster.topology.processes.map((p) => `temporal-${p.name}`);

    const before = sendWebhooks(hookId, burst / 2);
    await waitUntil(
      () => ended(id),
      (n) => n >= burst / 10,
      'a tenth of the burst to end',
      300_000,
    );
    await Promise.all(servers.map((name) => cluster.supervisor.pause(name)));
    const down = Date.now();
    await before;
    // With every server process down, the API still accepts webhooks: their events wait in the outbox.
    await sendWebhooks(hookId, burst / 2);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - down))));
    const waiting = await knex().raw(`select count(*)::int as n from outbox_events where dispatched_at is null and payload->>'webhookId' = ?`, [
      hookId,
    ]);
    expect(waiting.rows[0].n, 'webhooks accepted while Temporal is down wait undispatched').to.be.greaterThan(0);

    for (const name of servers) cluster.supervisor.resume(name);
    const back = new Date();
    await waitUntil(
      () => ended(id),
      (n) => n >= burst,
      'every run of the burst to end',
      600_000,
    );
    await expectEachRunOnce(id, hookId, 'outage', burst);
    const fired = async () =>
      Number((await knex().raw(`select count(*) from workflow_runs where workflow_id = ? and started_at > ?`, [scheduled, back])).rows[0].count);
    await waitUntil(fired, (n) => n >= 1, 'the every-minute schedule to fire after the cluster is back', 120_000);
    expect(
      workers.map((w) => w.child.exitCode),
      'the workers rode out the outage',
    ).to.deep.equal(workers.map(() => null));
  });
});
