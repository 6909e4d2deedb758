/**
 * agentry on a real Temporal cluster (`npm run cluster`'s topology: frontend, two history, matching, internal worker
 * as separate server processes on PostgreSQL), on ports and databases of this test's own. The first run on a machine
 * builds the server binaries (`.tools/bin`, minutes).
 */
import type { Client } from '@temporalio/client';
import { expect } from 'chai';
import { INCOMING_WEBHOOK_EVENT } from '../../db/services/incoming-webhooks.service.js';
import { connectTemporal } from '../../lib/temporal.js';
import { harness, harnessCluster } from '../setup/harness.js';
import { startTestCluster, type TestCluster } from '../setup/cluster.js';
import { call } from '../setup/http.js';
import { waitUntil } from '../setup/runs.js';
import { hookedWorkflow, newRig, startWorker, type Rig, type WorkerProcess } from './processes.js';

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

  it('a history process killed with SIGKILL in the middle of a 1,000-run burst: every run completes exactly once', async () => {
    const burst = Number(process.env.CLUSTER_BURST ?? 1000);
    const { id, hookId } = await hookedWorkflow(rig, 'burst', [{ type: 'DYNAMIC_TABLES', data: { action: 'CREATE', rowData: { Step: 'done' } } }]);
    const knex = rig.plant.orm.em.getKnex();
    const ended = async () =>
      Number((await knex.raw(`select count(*) from workflow_runs where workflow_id = ? and status <> 'running'`, [id])).rows[0].count);

    let sent = 0;
    const sending = Promise.all(
      Array.from({ length: 20 }, async () => {
        while (sent < burst) {
          sent += 1;
          const res = await call('POST', `/webhooks/${hookId}`, { baseUrl: rig.api.origin, body: { n: sent } });
          expect(res.status, res.text).to.equal(202);
        }
      }),
    );
    await waitUntil(ended, (n) => n >= burst / 5, 'a fifth of the burst to end', 300_000);
    const victim = cluster.supervisor.pid('temporal-history-1')!;
    process.kill(victim, 'SIGKILL');
    await sending;
    await waitUntil(ended, (n) => n >= burst, 'every run of the burst to end', 600_000);

    expect(cluster.events.join('\n')).to.match(/temporal-history-1 exited unexpectedly \(SIGKILL\)/);
    expect(cluster.events.join('\n')).to.match(/temporal-history-1 restarted/);
    const runs = await knex.raw(`select status, count(*)::int as n from workflow_runs where workflow_id = ? group by status`, [id]);
    expect(runs.rows).to.deep.equal([{ status: 'successful', n: burst }]);
    const outbox = await knex.raw(`select count(*)::int as n, count(dispatched_at)::int as dispatched from outbox_events where type = ?`, [
      INCOMING_WEBHOOK_EVENT,
    ]);
    expect(outbox.rows[0]).to.deep.equal({ n: burst, dispatched: burst });
    const rows = await call('POST', '/tables/burst/rows/count', { key: rig.key, baseUrl: `${rig.api.origin}/public/v1`, body: {} });
    expect(rows.body.count).to.equal(burst);
  });
});
