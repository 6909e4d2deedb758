import { MockActivityEnvironment, defaultActivityInfo } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger } from '@temporalio/worker';
import { expect } from 'chai';
import { executeDynamicTables } from '../../activities/nodes/dynamic-tables.node.js';
import type { ExecuteNodeArgs, ExecutorDeps } from '../../activities/nodes/types.js';
import type { NodeOutcome } from '../../workflows/interpreter/types.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';

describe('DYNAMIC_TABLES node retries', function () {
  this.timeout(30_000);
  const workflowExecution = { workflowId: 'automation:1:event-42', runId: 'run-of-event-42' };
  // The expected failure below is not worth a warning in the test output.
  const quiet = new DefaultLogger('ERROR');

  /** One attempt of one node execution, as Temporal would run it after a lost completion. */
  async function attempt(data: Record<string, unknown>, accountId: number, activityId: string, n: number): Promise<NodeOutcome> {
    const args = { accountId, workflowId: 1, node: { type: 'DYNAMIC_TABLES' }, data: { type: 'DYNAMIC_TABLES', ...data }, triggerPayload: null } as unknown as ExecuteNodeArgs;
    const env = new MockActivityEnvironment({ ...defaultActivityInfo, workflowExecution, activityId, attempt: n, scheduledTimestampMs: 1_800_000_000_000 }, { logger: quiet });
    return (await env.run(executeDynamicTables, args, { orm: harness().orm } as ExecutorDeps)) as NodeOutcome;
  }

  it('a retried CREATE answers the record its earlier attempt made; a retried DELETE of a deleted record succeeds', async () => {
    const a = await newAccount();
    const key = a.userKey;
    await call('POST', '/tables', { key, body: { name: 'leads', columns: [{ name: 'Name', type: 'string' }] } });
    const tableId = (await call('GET', '/tables/leads', { key })).body.id;
    const create = { action: 'CREATE', tableId, rowData: { Name: 'Ada' } };

    const first = (await attempt(create, a.account.id, '7', 1)).output as { id: string };
    const retried = (await attempt(create, a.account.id, '7', 2)).output as { id: string };
    expect(retried).to.deep.equal(first);
    const other = (await attempt(create, a.account.id, '8', 1)).output as { id: string };
    expect(other.id).to.not.equal(first.id);
    const rows = (await call('POST', '/tables/leads/rows/list', { key, body: {} })).body.agentry;
    expect(rows.map((r: { id: string }) => r.id).sort()).to.deep.equal([first.id, other.id].sort());

    const remove = { action: 'DELETE', tableId, rowId: first.id };
    expect((await attempt(remove, a.account.id, '9', 1)).output).to.deep.equal({ deleted: first.id });
    expect((await attempt(remove, a.account.id, '9', 2)).output).to.deep.equal({ deleted: first.id });
    const missing = await attempt(remove, a.account.id, '10', 1).then(() => undefined, (error: unknown) => error);
    expect(missing).to.be.instanceOf(ApplicationFailure);
    expect((missing as ApplicationFailure).nonRetryable).to.equal(true);
    expect((missing as Error).message).to.match(/not found/);
  });
});
