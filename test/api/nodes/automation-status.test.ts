import { ScheduleNotFoundError, type ScheduleDescription } from '@temporalio/client';
import { expect } from 'chai';
import { pruneNodeEffects } from '../../../db/node-effects/node-effects.js';
import { harness } from '../../setup/harness.js';
import { recordedActivities } from '../../setup/activity-history.js';
import { call, newAccount } from '../../setup/http.js';
import { executeNodeAttempt } from '../../setup/node-executions.js';
import { runResult } from '../../setup/runs.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

async function scheduleInfo(workflowId: number, nodeId: string): Promise<ScheduleDescription | null> {
  try {
    return await harness().env.client.schedule.getHandle(`automation-${workflowId}-${nodeId}`).describe();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return null;
    throw error;
  }
}

async function workflow(a: Account, name: string): Promise<number> {
  const res = await call('POST', '/workflows', { key: a.userKey, body: { name } });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

async function addNode(a: Account, workflowId: number, body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', `/workflows/${workflowId}/nodes`, { key: a.userKey, body });
  expect(res.status, res.text).to.equal(201);
  return res.body.nodes.at(-1).nodeId;
}

/** A workflow whose only node changes `target`'s status with `action`. */
async function switcher(a: Account, target: number, action: string): Promise<number> {
  const id = await workflow(a, `Switch ${target} ${action}`);
  await addNode(a, id, { type: 'AUTOMATION_STATUS', data: { automationId: target, action } });
  return id;
}

/** Runs a workflow's draft by hand and waits for the run's result. */
async function run(a: Account, workflowId: number) {
  const started = await call('POST', `/workflows/${workflowId}/runs?snapshot=draft`, { key: a.userKey, body: {} });
  expect(started.status, started.text).to.equal(202);
  return runResult(started.body.id);
}

const statusOf = async (a: Account, id: number) => (await call('GET', `/workflows/${id}`, { key: a.userKey })).body;

describe('AUTOMATION_STATUS node', function () {
  this.timeout(60_000);

  it('toggles another workflow between ACTIVE and DRAFT, and its schedules follow without publishing its draft', async () => {
    const a = await newAccount();
    const nightly = await workflow(a, 'Nightly export');
    const node = await addNode(a, nightly, {
      type: 'SCHEDULED_TRIGGER',
      data: { cronExpression: '0 2 * * *', timezone: 'Europe/Paris', startTime: null, endTime: null },
    });
    const published = (await call('POST', `/workflows/${nightly}/publish`, { key: a.userKey })).body.liveSnapshotId;
    // A draft edit that was never published must not reach the schedule.
    await call('PUT', `/workflows/${nightly}/nodes/${node}`, {
      key: a.userKey,
      body: { type: 'SCHEDULED_TRIGGER', data: { cronExpression: '0 5 * * *', timezone: 'Europe/Paris', startTime: null, endTime: null } },
    });
    expect(await scheduleInfo(nightly, node)).to.equal(null);

    const toggle = await switcher(a, nightly, 'TOGGLE');
    const on = await run(a, toggle);
    expect(on.successful, JSON.stringify(on)).to.equal(true);
    expect(on.nodeResults[0]!.output).to.deep.equal({ automationId: nightly, previousStatus: 'DRAFT', status: 'ACTIVE' });
    expect(await statusOf(a, nightly)).to.include({ status: 'ACTIVE', liveSnapshotId: published });
    const schedule = (await scheduleInfo(nightly, node))!;
    expect(schedule.state.paused).to.equal(false);
    expect(schedule.info.nextActionTimes[0]!.toLocaleTimeString('en-GB', { timeZone: 'Europe/Paris' })).to.equal('02:00:00');

    const off = await run(a, toggle);
    expect(off.nodeResults[0]!.output).to.deep.equal({ automationId: nightly, previousStatus: 'ACTIVE', status: 'DRAFT' });
    expect((await statusOf(a, nightly)).status).to.equal('DRAFT');
    expect((await scheduleInfo(nightly, node))!.state.paused).to.equal(true);

    // SET_ACTIVE and SET_DRAFT set the status whatever it was.
    for (const [action, expected] of [
      ['SET_ACTIVE', 'ACTIVE'],
      ['SET_ACTIVE', 'ACTIVE'],
      ['SET_DRAFT', 'DRAFT'],
    ] as const) {
      const result = await run(a, await switcher(a, nightly, action));
      expect(result.successful, JSON.stringify(result)).to.equal(true);
      expect((await statusOf(a, nightly)).status).to.equal(expected);
      expect((await scheduleInfo(nightly, node))!.state.paused).to.equal(expected !== 'ACTIVE');
    }
  });

  it('activates a never-published workflow without publishing it: nothing live, so no schedule', async () => {
    const a = await newAccount();
    const target = await workflow(a, 'Unpublished');
    const node = await addNode(a, target, {
      type: 'SCHEDULED_TRIGGER',
      data: { cronExpression: '@hourly', timezone: 'UTC', startTime: null, endTime: null },
    });
    const result = await run(a, await switcher(a, target, 'SET_ACTIVE'));
    expect(result.successful, JSON.stringify(result)).to.equal(true);
    expect(await statusOf(a, target)).to.include({ status: 'ACTIVE', liveSnapshotId: null });
    expect(await scheduleInfo(target, node)).to.equal(null);
  });

  it('fails the node at once when the target was deleted, and refuses another account’s workflow at save', async () => {
    const a = await newAccount();
    const target = await workflow(a, 'Short-lived');
    const toggle = await switcher(a, target, 'TOGGLE');
    expect((await call('DELETE', `/workflows/${target}`, { key: a.userKey })).status).to.equal(204);
    const started = await call('POST', `/workflows/${toggle}/runs?snapshot=draft`, { key: a.userKey, body: {} });
    const result = await runResult(started.body.id);
    expect(result.successful).to.equal(false);
    expect(result.error!.message).to.equal(`Automation ${target} no longer exists (it was deleted)`);
    expect(result.nodeResults.map((r) => r.success)).to.deep.equal([false]);
    const attempts = (await recordedActivities(started.body.id, ['executeNode'])).map((a) => a.attempts);
    expect(attempts, 'not retried').to.deep.equal([1]);

    const other = await newAccount();
    const theirs = await workflow(other, 'Theirs');
    const refused = await call('POST', `/workflows/${toggle}/nodes`, {
      key: a.userKey,
      body: { type: 'AUTOMATION_STATUS', data: { automationId: theirs, action: 'SET_DRAFT' } },
    });
    expect(refused.status).to.equal(400);
    expect(refused.body.details.issues).to.deep.include({
      code: 'not_found',
      path: 'data.automationId',
      message: `no workflow ${theirs} in this account`,
    });
    expect((await statusOf(other, theirs)).status).to.equal('DRAFT');
  });

  it('a retried AUTOMATION_STATUS TOGGLE flips the status once', async () => {
    const a = await newAccount();
    const target = (await call('POST', '/workflows', { key: a.userKey, body: { name: 'Target' } })).body.id as number;
    const toggle = (executionKey: string, attempt = 1) =>
      executeNodeAttempt(
        { accountId: a.account.id, type: 'AUTOMATION_STATUS', data: { automationId: target, action: 'TOGGLE' }, executionKey },
        attempt,
      );
    const first = (await toggle('toggle#1')).output;
    expect(first).to.deep.equal({ automationId: target, previousStatus: 'DRAFT', status: 'ACTIVE' });
    expect((await toggle('toggle#1', 2)).output).to.deep.equal(first);
    expect((await call('GET', `/workflows/${target}`, { key: a.userKey })).body.status).to.equal('ACTIVE');
    expect((await toggle('toggle#2')).output).to.deep.include({ previousStatus: 'ACTIVE', status: 'DRAFT' });
    // Outcomes are kept for retries, then pruned by the worker's housekeeping.
    expect(await pruneNodeEffects(harness().orm.em.getKnex(), new Date(Date.now() + 60_000))).to.be.at.least(2);
  });
});
