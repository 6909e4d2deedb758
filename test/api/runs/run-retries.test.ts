import { expect } from 'chai';
import { defaultPayloadConverter } from '@temporalio/common';
import { harness } from '../../setup/harness.js';
import { awaitRun, runResult } from '../../setup/runs.js';
import { call, newAccount } from '../../setup/http.js';
import { startRun, startService, threeNodeWorkflow, type Service } from './run-operations.helpers.js';

describe('retrying a failed run', function () {
  this.timeout(90_000);
  let service: Service;
  before(async () => (service = await startService()));
  after(() => service.close());

  const retry = (key: string, workflowId: number, logId: string, body: unknown, headers: Record<string, string> = {}) =>
    call('POST', `/workflows/${workflowId}/logs/${encodeURIComponent(logId)}/retry`, { key, body, headers });
  const log = (key: string, workflowId: number, logId: string) => call('GET', `/workflows/${workflowId}/logs/${encodeURIComponent(logId)}`, { key });

  it('from the failed node: nodes 1 and 2 are not called again, node 3 once with their outputs, and the logs link both ways', async () => {
    const { userKey: key } = await newAccount();
    const wf = await threeNodeWorkflow(key, service.origin, 'r');
    service.failing.set('/r-3', 500);
    const failedId = await startRun(key, wf.id, 'order-1');
    const failed = await runResult(failedId);
    expect(failed.successful).to.equal(false);
    expect(failed.error).to.include({ nodeId: wf.three });
    const failedAttempts = service.hits.get('/r-3')!;
    expect([service.hits.get('/r-1'), service.hits.get('/r-2'), failedAttempts]).to.deep.equal([1, 1, 4]); // 500 is retried

    service.failing.delete('/r-3');
    const headers = { 'Idempotency-Key': `retry-${failedId}` };
    const first = await retry(key, wf.id, failedId, { from: 'failed-node', graph: 'original' }, headers);
    expect(first.status, first.text).to.equal(202);
    expect(first.body).to.include({ retryOf: failedId, from: 'failed-node', graph: 'original' });
    expect(first.body.id).to.match(new RegExp(`^automation:${wf.id}:retry-`));
    const again = await retry(key, wf.id, failedId, { from: 'failed-node', graph: 'original' }, headers);
    expect([again.status, again.body.id, again.headers.get('idempotent-replayed')]).to.deep.equal([202, first.body.id, 'true']);

    const result = await awaitRun(first.body.id);
    expect(result.successful, JSON.stringify(result.error)).to.equal(true);
    expect([service.hits.get('/r-1'), service.hits.get('/r-2'), service.hits.get('/r-3')]).to.deep.equal([1, 1, failedAttempts + 1]);
    expect(service.urls.at(-1)).to.equal('/r-3?first=r-1');
    expect(result.nodeResults.map((r) => [r.nodeId, r.success])).to.deep.equal([
      [wf.entry, true],
      [wf.one, true],
      [wf.two, true],
      [wf.three, true],
    ]);

    const retried = await log(key, wf.id, first.body.id);
    expect(retried.body).to.include({ status: 'successful', retry_of: failedId });
    const original = await log(key, wf.id, failedId);
    expect(original.body.retries.map((r: { id: string }) => r.id)).to.deep.equal([first.body.id]);
    expect(original.body.retries[0]).to.include({ from: 'failed-node', graph: 'original', job_id: null });
    // Temporal keeps the link in the new run's history: its input names the run it retries.
    const input = (await runInputOf(first.body.id)) as { retryOf?: { runWorkflowId: string } };
    expect(input.retryOf?.runWorkflowId).to.equal(failedId);
    // The Temporal UI shows the retry as what it is: its summary names the run it retries and where it starts.
    const described = await harness().env.client.workflow.getHandle(first.body.id).describe();
    expect(await described.staticSummary()).to.match(new RegExp(`^Retry of ${failedId} \\(run [0-9a-f-]+\\) from its failed node ${wf.three}$`));

    const notFailed = await retry(key, wf.id, first.body.id, { from: 'failed-node' });
    expect([notFailed.status, notFailed.body.message]).to.deep.equal([
      409,
      `Log ${first.body.id} did not fail (it is successful): only a failed run can be retried`,
    ]);
    const stranger = await newAccount();
    expect((await retry(stranger.userKey, wf.id, failedId, { from: 'start' })).status).to.equal(404);
    const reused = await retry(key, wf.id, failedId, { from: 'start', graph: 'original' }, headers);
    expect(reused.status).to.equal(409);
  });

  it('on the live graph after node 3 was edited, and refuses a node the live graph no longer has', async () => {
    const { userKey: key } = await newAccount();
    const wf = await threeNodeWorkflow(key, service.origin, 'l');
    service.failing.set('/l-3', 404);
    const failedId = await startRun(key, wf.id);
    expect((await runResult(failedId)).error).to.include({ nodeId: wf.three });

    const edited = await call('PUT', `/workflows/${wf.id}/nodes/${wf.three}`, {
      key,
      body: { type: 'API', data: { url: `${service.origin}/l-3b?first={${wf.one}.value}`, method: 'GET' } },
    });
    expect(edited.status, edited.text).to.equal(200);
    expect((await call('POST', `/workflows/${wf.id}/publish`, { key })).status).to.be.oneOf([200, 201]);
    const started = await retry(key, wf.id, failedId, { from: 'failed-node', graph: 'live' });
    expect(started.status, started.text).to.equal(202);
    expect((await awaitRun(started.body.id)).successful).to.equal(true);
    expect([service.hits.get('/l-1'), service.hits.get('/l-2'), service.hits.get('/l-3'), service.hits.get('/l-3b')]).to.deep.equal([1, 1, 1, 1]);
    expect(service.urls.at(-1)).to.equal('/l-3b?first=l-1');

    // From the start on the original graph: every node again, node 3 failing as before.
    const fromStart = await retry(key, wf.id, failedId, { from: 'start', graph: 'original' });
    expect((await awaitRun(fromStart.body.id)).error).to.include({ nodeId: wf.three });
    expect([service.hits.get('/l-1'), service.hits.get('/l-2'), service.hits.get('/l-3')]).to.deep.equal([2, 2, 2]);

    expect((await call('DELETE', `/workflows/${wf.id}/nodes/${wf.three}`, { key })).status).to.equal(200);
    expect((await call('POST', `/workflows/${wf.id}/publish`, { key })).status).to.be.oneOf([200, 201]);
    const gone = await retry(key, wf.id, failedId, { from: 'failed-node', graph: 'live' });
    expect([gone.status, gone.body.message]).to.deep.equal([
      409,
      `The failed node ${wf.three} of log ${failedId} is no longer in the live graph of workflow ${wf.id}`,
    ]);
    const original = await log(key, wf.id, failedId);
    expect(original.body.retries.map((r: { graph: string; from: string }) => `${r.from}/${r.graph}`)).to.deep.equal([
      'failed-node/live',
      'start/original',
    ]);
  });
});

async function runInputOf(logId: string): Promise<unknown> {
  const history = await harness().env.client.workflow.getHandle(logId).fetchHistory();
  return defaultPayloadConverter.fromPayload(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!);
}
