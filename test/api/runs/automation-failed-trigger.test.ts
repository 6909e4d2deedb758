import { expect } from 'chai';
import { activeChain, newTable, rowsOf } from '../active-automations.helpers.js';
import { ledgerRuns, waitUntil } from '../../setup/runs.js';
import { openRuns, quiet, undispatchedEvents } from '../../setup/quiet.js';
import { call, newAccount } from '../../setup/http.js';
import { startRun, startService, type Service } from './run-operations.helpers.js';

describe('AUTOMATION_FAILED triggers', function () {
  this.timeout(90_000);
  let service: Service;
  before(async () => {
    service = await startService();
    service.failing.set('/down', 404);
  });
  after(() => service.close());

  it('writes a table row per failed run of the workflows it lists, with the failure, and never triggers itself', async () => {
    const { userKey: key, account } = await newAccount();
    await newTable(key, 'failures', ['Log', 'Node', 'Error', 'Payload']);
    const failing = await activeChain(key, 'Calls a dead API', [
      { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } },
      { type: 'API', alias: 'lookup', data: { url: `${service.origin}/down` } },
    ]);
    const refused = await call('POST', '/workflows', { key, body: { name: 'Bad listener' } });
    const badNode = await call('POST', `/workflows/${refused.body.id}/nodes`, {
      key,
      body: { type: 'TRIGGER', data: { triggerType: 'AUTOMATION_FAILED', triggeredByWorkflowIds: [999999] } },
    });
    expect([badNode.status, badNode.body.details?.issues?.[0]?.path]).to.deep.equal([400, 'data.triggeredByWorkflowIds']);
    // Another account's workflow is not one it can listen to: the same answer as a workflow that does not exist.
    const strangers = await activeChain((await newAccount()).userKey, "Another account's", [
      { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } },
      { type: 'API', data: { url: `${service.origin}/down` } },
    ]);
    const foreign = await call('POST', `/workflows/${refused.body.id}/nodes`, {
      key,
      body: { type: 'TRIGGER', data: { triggerType: 'AUTOMATION_FAILED', triggeredByWorkflowIds: [strangers.id] } },
    });
    expect([foreign.status, foreign.body.details?.issues?.[0]?.path]).to.deep.equal([400, 'data.triggeredByWorkflowIds']);
    const recorder = await activeChain(key, 'Records failures', [
      { type: 'TRIGGER', data: { triggerType: 'AUTOMATION_FAILED', triggeredByWorkflowIds: [failing.id] } },
      {
        type: 'DYNAMIC_TABLES',
        data: {
          action: 'CREATE',
          tableId: (await call('GET', '/tables/failures', { key })).body.id,
          rowData: {
            Log: '{trigger_payload.logId}',
            Node: '{trigger_payload.failedNode.alias}',
            Error: '{trigger_payload.error}',
            Payload: '{trigger_payload.triggerPayload.order}',
          },
        },
      },
    ]);
    // It listens to its own failures too, and fails: its failure event is stopped as a loop, not run again.
    const selfListener = await activeChain(key, 'Fails on failures', [
      { type: 'TRIGGER', data: { triggerType: 'AUTOMATION_FAILED', triggeredByWorkflowIds: [failing.id] } },
      { type: 'API', data: { url: `${service.origin}/down` } },
    ]);
    const listensToItself = await call('PUT', `/workflows/${selfListener.id}/nodes/${selfListener.nodeIds[0]}`, {
      key,
      body: { type: 'TRIGGER', data: { triggerType: 'AUTOMATION_FAILED', triggeredByWorkflowIds: [failing.id, selfListener.id] } },
    });
    expect(listensToItself.status, listensToItself.text).to.equal(200);

    const first = await startRun(key, failing.id, { order: 'A-1' });
    const second = await startRun(key, failing.id, { order: 'A-2' });
    const rows = await waitUntil(
      () => rowsOf(key, 'failures'),
      (r) => r.length >= 2,
      'a row per failure',
      60_000,
    );
    await quiet(() => rowsOf(key, 'failures'), {
      busy: [undispatchedEvents(account.id), openRuns({ accountId: account.id })],
      what: 'the failure rows',
    });
    const seen = (await rowsOf(key, 'failures')).map((r) => [r.data.Log, r.data.Node, r.data.Payload]);
    expect(seen).to.have.deep.members([
      [first, 'lookup', 'A-1'],
      [second, 'lookup', 'A-2'],
    ]);
    expect(String(rows[0]!.data.Error)).to.match(/answered 404/);
    // The self-listener ran once per failure of `failing`, and its own failures were stopped as loops.
    const own = await ledgerRuns(selfListener.id);
    expect(own.filter((r) => !r.prevented_loop).map((r) => r.status)).to.deep.equal(['failed', 'failed']);
    expect(own.filter((r) => r.prevented_loop)).to.have.length(2);
    expect((await ledgerRuns(recorder.id)).map((r) => r.status)).to.deep.equal(['successful', 'successful']);
  });
});
