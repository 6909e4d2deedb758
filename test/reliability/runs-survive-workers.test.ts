import type { Server } from 'node:http';
import { expect } from 'chai';
import { harness } from '../setup/harness.js';
import { call } from '../setup/http.js';
import { openRuns, quiet } from '../setup/quiet.js';
import { awaitRun, eventually } from '../setup/runs.js';
import {
  hookedWorkflow as hooked,
  killWorker,
  newRig,
  startWorker,
  stopWorker,
  type Plant,
  type Rig,
  type Step,
  type WorkerProcess,
} from './processes.js';

describe('runs survive worker crashes and downtime (real worker processes)', function () {
  this.timeout(180_000);
  let plant: Plant;
  let api: { server: Server; origin: string };
  let service: Rig['service'];
  let key: string;
  let worker: WorkerProcess | undefined;
  const v1 = () => `${api.origin}/public/v1`;

  let rig: Rig;
  before(async () => {
    rig = await newRig();
    ({ plant, api, service, key } = rig);
  });
  after(() => rig.close(worker));

  const hookedWorkflow = (name: string, tail: Step[]) => hooked({ api, key }, name, tail);

  const steps = async (name: string) =>
    (await call('POST', `/tables/${name}/rows/list`, { key, baseUrl: v1(), body: {} })).body.agentry
      .map((r: { data: { Step: string } }) => r.data.Step)
      .sort();
  const runsOf = async (id: number) =>
    (await plant.orm.em.getKnex().raw('select status from workflow_runs where workflow_id = ?', [id])).rows.map((r: { status: string }) => r.status);
  const create = (step: string) => ({ type: 'DYNAMIC_TABLES', data: { action: 'CREATE', rowData: { Step: step } } });

  it('a worker killed in the middle of a run: a new worker finishes the run exactly once', async () => {
    const { id, hookId } = await hookedWorkflow('crash', [
      create('before'),
      { type: 'API', data: { url: `${service.origin}/slow` } },
      create('after'),
    ]);
    worker = await startWorker(plant);
    const res = await call('POST', `/webhooks/${hookId}`, { baseUrl: api.origin, body: { n: 1 } });
    expect(res.status).to.equal(202);
    await eventually(async () => (service.hits() >= 1 ? true : undefined), 'the API node to call /slow', 60_000);
    await killWorker(worker);
    worker = await startWorker(plant);
    const temporalId = `automation:${id}:event-${res.body.eventId}`;
    const result = await harness().env.client.workflow.getHandle(temporalId).result();
    expect(result.successful).to.equal(true);
    expect(await steps('crash')).to.deep.equal(['after', 'before']);
    expect(await runsOf(id)).to.deep.equal(['successful']);
    expect(service.hits()).to.equal(2); // the call in flight when the worker died was retried once
    // The run held an admission slot while its worker died: the new worker's end of the run freed it.
    const slots = await plant.orm.em.getKnex().raw('select finished_at from admitted_runs where id = ?', [temporalId]);
    expect(slots.rows.map((r: { finished_at: Date | null }) => r.finished_at !== null)).to.deep.equal([true]);
    const workflow = (await call('GET', `/workflows/${id}`, { key, baseUrl: v1() })).body;
    expect([workflow.runsCount, workflow.runsFailedCount]).to.deep.equal([1, 0]);
  });

  it('a webhook accepted while no worker runs is run when a worker comes back', async () => {
    const { id, hookId } = await hookedWorkflow('later', [create('done')]);
    if (worker) await stopWorker(worker);
    worker = undefined;
    const started = Date.now();
    const res = await call('POST', `/webhooks/${hookId}`, { baseUrl: api.origin, body: { n: 2 } });
    expect(res.status).to.equal(202);
    expect(Date.now() - started).to.be.below(2_000);
    // With no worker, no dispatcher: the event waits in the outbox and nothing runs, however long one watches.
    const pending = async () =>
      (await plant.orm.em.getKnex().raw('select dispatched_at from outbox_events where id = ?', [res.body.eventId])).rows.map(
        (r: { dispatched_at: Date | null }) => r.dispatched_at === null,
      );
    const open = openRuns({ automationId: id });
    const settled = await quiet(async () => ({ runs: await runsOf(id), open: await open(), pending: await pending() }), {
      what: 'the workflow without a worker',
    });
    expect(settled).to.deep.equal({ runs: [], open: 0, pending: [true] });
    worker = await startWorker(plant);
    const result = await awaitRun(`automation:${id}:event-${res.body.eventId}`);
    expect(result.successful).to.equal(true);
    expect(await steps('later')).to.deep.equal(['done']);
    expect(await runsOf(id)).to.deep.equal(['successful']);
  });
});
