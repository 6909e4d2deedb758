/**
 * agentry on a real Temporal cluster (`npm run cluster`'s topology: frontend, two history, matching, internal worker
 * as separate server processes on PostgreSQL), on ports and databases of this test's own. The first run on a machine
 * builds the server binaries (`.tools/bin`, minutes).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { expect } from 'chai';
import { dropDatabase } from '../../db/database.js';
import { INCOMING_WEBHOOK_EVENT } from '../../db/services/incoming-webhooks.service.js';
import { siblingDatabaseUrl } from '../../lib/cluster/schema.js';
import { startTemporalCluster } from '../../lib/cluster/start.js';
import { loadTopology, type ClusterTopology } from '../../lib/cluster/topology.js';
import { Supervisor } from '../../lib/supervisor.js';
import { connectTemporal } from '../../lib/temporal.js';
import { harness, projectRoot } from '../setup/harness.js';
import { call } from '../setup/http.js';
import { waitUntil } from '../setup/runs.js';
import { hookedWorkflow, newRig, startWorker, type Rig, type WorkerProcess } from './processes.js';

/** cluster/cluster.json moved to free ports and databases named for this run. */
function testTopology(): ClusterTopology {
  const topology = loadTopology();
  // Membership ports are stored as PostgreSQL smallints: they stay below 32768.
  const offset = 10_000 + Math.floor(Math.random() * 150) * 100;
  const suffix = randomBytes(3).toString('hex');
  return {
    ...topology,
    databases: { default: `${topology.databases.default}_${suffix}`, visibility: `${topology.databases.visibility}_${suffix}` },
    processes: topology.processes.map((p) => ({
      ...p,
      grpcPort: p.grpcPort + offset,
      membershipPort: p.membershipPort + offset,
      ...(p.httpPort ? { httpPort: p.httpPort + offset } : {}),
    })),
    ui: { ...topology.ui, port: topology.ui.port + offset },
  };
}

describe('runs on a Temporal cluster of separate server processes (real processes)', function () {
  this.timeout(900_000);
  const topology = testTopology();
  const events: string[] = [];
  const supervisor = new Supervisor(projectRoot, { error: (m) => events.push(m), info: (m) => events.push(m) });
  let client: Client;
  let rig: Rig;
  const workers: WorkerProcess[] = [];

  before(async () => {
    const address = await startTemporalCluster({
      topology,
      databaseUrl: harness().databaseUrl,
      dir: mkdtempSync(join(tmpdir(), 'agentry-cluster-')),
      namespace: 'default',
      retentionDays: 1,
      supervisor,
      step: (m) => events.push(m),
    });
    client = await connectTemporal({ address, namespace: 'default' });
    rig = await newRig(client);
    for (let i = 0; i < 2; i += 1) workers.push(await startWorker(rig.plant, address));
  });

  after(async () => {
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    await rig?.close();
    await client?.connection.close();
    await supervisor.stop();
    for (const name of Object.values(topology.databases)) await dropDatabase(siblingDatabaseUrl(harness().databaseUrl, name));
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
    const victim = supervisor.pid('temporal-history-1')!;
    process.kill(victim, 'SIGKILL');
    await sending;
    await waitUntil(ended, (n) => n >= burst, 'every run of the burst to end', 600_000);

    expect(events.join('\n')).to.match(/temporal-history-1 exited unexpectedly \(SIGKILL\)/);
    expect(events.join('\n')).to.match(/temporal-history-1 restarted/);
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
