import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { ledgerRuns, waitUntil } from '../../setup/runs.js';
import { call, newAccount } from '../../setup/http.js';
import { startService, type Service } from './run-operations.helpers.js';

describe('cancelling and terminating a run', function () {
  this.timeout(60_000);
  let service: Service;
  before(async () => (service = await startService()));
  after(() => service.close());

  /** A published workflow WEBHOOK → API `/slow` (which never answers), and a run of it hanging in the API node. */
  async function hangingRun(key: string) {
    const id = (await call('POST', '/workflows', { key, body: { name: 'Hangs' } })).body.id as number;
    const entry = (await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } } }))
      .body.nodes[0].nodeId;
    const api = (await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'API', data: { url: `${service.origin}/slow` } } })).body.nodes.at(
      -1,
    ).nodeId;
    await call('POST', `/workflows/${id}/edges`, { key, body: { source: entry, handle: 'default', targetEdge: api } });
    const before = service.hits.get('/slow') ?? 0;
    const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: { payload: null } });
    await waitUntil(
      async () => service.hits.get('/slow') ?? 0,
      (hits) => hits > before,
      'the API node to call /slow',
    );
    return { id, logId: started.body.id as string, path: (op: string) => `/workflows/${id}/logs/${encodeURIComponent(started.body.id)}/${op}` };
  }

  it('cancels a run hanging in an API node: its HTTP call is aborted and the log says cancelled', async () => {
    const { userKey: key } = await newAccount();
    const run = await hangingRun(key);
    const aborted = service.aborted.length;
    const stranger = await newAccount();
    expect((await call('POST', run.path('cancel'), { key: stranger.userKey })).status).to.equal(404);
    expect((await call('POST', run.path('cancel'), { key })).status).to.equal(202);
    await waitUntil(
      async () => service.aborted.length,
      (n) => n > aborted,
      'the HTTP call to be aborted',
    );
    const log = await waitUntil(
      () => call('GET', `/workflows/${run.id}/logs/${encodeURIComponent(run.logId)}`, { key }),
      (res) => res.body.status === 'cancelled',
      'the log to say cancelled',
    );
    expect(log.body).to.include({ error: 'Cancelled', successful: false });
    expect((await call('POST', run.path('terminate'), { key, body: { reason: 'late' } })).status).to.equal(409);
    expect((await call('POST', run.path('cancel'), { key })).status).to.equal(409);
    // The Temporal UI shows where the cancellation came from: its reason is in the run's history.
    const history = await harness().env.client.workflow.getHandle(run.logId).fetchHistory();
    const requested = history.events?.find((e) => e.workflowExecutionCancelRequestedEventAttributes);
    expect(requested?.workflowExecutionCancelRequestedEventAttributes?.cause).to.equal(
      `Cancelled through the API (POST /workflows/${run.id}/logs/{logId}/cancel)`,
    );
  });

  it('terminates a running run with a reason, recorded in its log and history; twice is 409', async () => {
    const { userKey: key } = await newAccount();
    const run = await hangingRun(key);
    const stranger = await newAccount();
    expect((await call('POST', run.path('terminate'), { key: stranger.userKey, body: { reason: 'x' } })).status).to.equal(404);
    expect((await call('POST', run.path('terminate'), { key, body: {} })).status).to.equal(400);
    const terminated = await call('POST', run.path('terminate'), { key, body: { reason: 'vendor outage' } });
    expect(terminated.status, terminated.text).to.equal(200);
    expect(terminated.body).to.include({ status: 'failed', error: 'Terminated: vendor outage' });
    const log = await call('GET', `/workflows/${run.id}/logs/${encodeURIComponent(run.logId)}`, { key });
    expect(log.body).to.include({ status: 'failed', error: 'Terminated: vendor outage' });
    const again = await call('POST', run.path('terminate'), { key, body: { reason: 'again' } });
    expect([again.status, again.body.message]).to.deep.equal([
      409,
      `Log ${run.logId} has already ended (failed): only a running run can be terminated`,
    ]);
    // The ledger closed the run at once, so its admission slot is free without waiting for the sweep.
    expect((await ledgerRuns(run.id)).map((r) => r.status)).to.deep.equal(['failed']);
  });
});
