import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { ledgerRuns, waitUntil } from '../../setup/runs.js';
import { call, newAccount } from '../../setup/http.js';
import { startRun, startService, threeNodeWorkflow, type Service } from './run-operations.helpers.js';

/** Failed runs one job retries: 40 by default, so the suite stays fast; RETRY_JOB_RUNS=200 for the figure. */
const RUNS = Number(process.env.RETRY_JOB_RUNS ?? 40);

describe('retry jobs', function () {
  this.timeout(300_000);
  let service: Service;
  before(async () => (service = await startService()));
  after(() => service.close());

  it(`retries ${RUNS} failed runs from their failed node in one job: all successful, none twice`, async () => {
    const { userKey: key } = await newAccount();
    const wf = await threeNodeWorkflow(key, service.origin, 'j');
    service.failing.set('/j-3', 404);
    const window = { from: new Date(Date.now() - 60_000).toISOString() };
    const failed = new Set<string>();
    for (let i = 0; i < RUNS; i += 1) failed.add(await startRun(key, wf.id, { order: i }));
    await waitUntil(
      () => ledgerRuns(wf.id),
      (runs) => runs.length === RUNS && runs.every((r) => r.status === 'failed'),
      'every run to fail',
      120_000,
    );
    const body = { filter: { status: 'failed', ...window, to: new Date(Date.now() + 60_000).toISOString() }, from: 'failed-node', graph: 'original' };
    const dry = await waitUntil(
      () => call('POST', `/workflows/${wf.id}/retries`, { key, body: { ...body, dryRun: true } }),
      (res) => res.body.count === RUNS,
      'visibility to list every failed run',
    );
    expect(dry.body.sample).to.have.length(Math.min(10, RUNS));
    expect(dry.body.sample.every((id: string) => failed.has(id))).to.equal(true);
    expect(await ledgerRuns(wf.id)).to.have.length(RUNS); // a dry run starts nothing

    service.failing.delete('/j-3');
    const stranger = await newAccount();
    expect((await call('POST', `/workflows/${wf.id}/retries`, { key: stranger.userKey, body })).status).to.equal(404);
    const started = await call('POST', `/workflows/${wf.id}/retries`, { key, body });
    expect(started.status, started.text).to.equal(202);
    const jobPath = `/workflows/${wf.id}/retries/${started.body.id}`;
    expect((await call('GET', jobPath, { key: stranger.userKey })).status).to.equal(404);
    expect((await call('DELETE', jobPath, { key: stranger.userKey })).status).to.equal(404);
    const done = await waitUntil(
      () => call('GET', jobPath, { key }),
      (res) => res.body.status === 'completed' && res.body.succeeded + res.body.failed === RUNS,
      'the job to end with every retry ended',
      240_000,
    );
    expect(done.body).to.include({ planned: RUNS, started: RUNS, succeeded: RUNS, failed: 0, running: 0 });
    const retries = await harness().orm.em.getKnex().raw('select original_id from run_retries where job_id = ?', [started.body.id]);
    expect(new Set(retries.rows.map((r: { original_id: string }) => r.original_id))).to.deep.equal(failed);
    // Nodes 1 and 2 ran once per original run; node 3 once more per retry.
    expect([service.hits.get('/j-1'), service.hits.get('/j-2'), service.hits.get('/j-3')]).to.deep.equal([RUNS, RUNS, 2 * RUNS]);
    const cancelled = await call('DELETE', jobPath, { key });
    expect([cancelled.status, cancelled.body.status]).to.deep.equal([202, 'completed']);
    const described = await harness().env.client.workflow.getHandle(done.body.temporalWorkflowId).describe();
    expect([described.type, described.status.name]).to.deep.equal(['retryRuns', 'COMPLETED']);
    // The Temporal UI shows the job as what it is: a batch retry, its summary saying of which runs, and how.
    expect(await described.staticSummary()).to.equal(
      `Retry job: the runs of workflow ${wf.id} that failed from ${body.filter.from} to ${body.filter.to}, retried from failed-node on the original graph`,
    );
    expect(JSON.parse((await described.staticDetails())!)).to.deep.equal(body);
  });
});
