import { nodeFactsOf } from '../../nodes/registry.js';
import { Client, Connection, ScheduleNotFoundError, type ScheduleDescription } from '@temporalio/client';
import { expect } from 'chai';
import { reconcileSchedules, type ScheduleSource } from '../../db/automations/schedules.service.js';
import type { GraphNode } from '../../lib/graph/graph.js';
import { TemporalAutomationSchedules } from '../../integrations/temporal/automation-schedules.js';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { eventually, runResult } from '../setup/runs.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

/** A SCHEDULED_TRIGGER node's data, as a user sends it. */
const scheduled = (cronExpression: string, extra: Record<string, unknown> = {}) => ({
  type: 'SCHEDULED_TRIGGER',
  data: { cronExpression, timezone: 'Europe/Paris', startTime: null, endTime: null, ...extra },
});

const scheduleOf = (workflowId: number, nodeId: string) => harness().env.client.schedule.getHandle(`automation-${workflowId}-${nodeId}`);

async function scheduleInfo(workflowId: number, nodeId: string): Promise<ScheduleDescription | null> {
  try {
    return await scheduleOf(workflowId, nodeId).describe();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return null;
    throw error;
  }
}

async function addNode(a: Account, workflowId: number, body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', `/workflows/${workflowId}/nodes`, { key: a.userKey, body });
  expect(res.status, res.text).to.equal(201);
  return res.body.nodes.at(-1).nodeId;
}

async function put(a: Account, path: string, body: unknown) {
  const res = await call('PUT', path, { key: a.userKey, body });
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

async function publish(a: Account, workflowId: number) {
  const res = await call('POST', `/workflows/${workflowId}/publish`, { key: a.userKey });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

/** The local hours (in Europe/Paris) and minutes of fire times. */
const parisTimes = (dates: Date[]) =>
  dates.map((d) => d.toLocaleTimeString('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit' }));

describe('SCHEDULED_TRIGGER nodes as Temporal Schedules', function () {
  this.timeout(60_000);

  it('activating runs the live graph on a schedule; publishing, DRAFT and ACTIVE again keep it in step', async () => {
    const a = await newAccount();
    const key = a.userKey;
    await call('POST', '/tables', { key, body: { name: 'ticks', columns: [{ name: 'Name', type: 'string' }] } });
    const table = (await call('GET', '/tables/ticks', { key })).body;
    const id = (await call('POST', '/workflows', { key, body: { name: 'New year greeting' } })).body.id;
    // Once a year, so the schedule never fires by itself while the test runs: runs come from trigger().
    const tick = await addNode(a, id, scheduled('0 9 1 1 *'));
    const create = await addNode(a, id, { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId: table.id, rowData: { Name: 'tick' } } });
    await call('POST', `/workflows/${id}/edges`, { key, body: { source: tick, handle: 'default', targetEdge: create } });
    expect(await scheduleInfo(id, tick), 'a DRAFT workflow has no schedule').to.equal(null);

    // ACTIVE on a never-published workflow publishes its draft first, then schedules the live graph.
    const active = await put(a, `/workflows/${id}`, { status: 'ACTIVE' });
    expect(active.status).to.equal('ACTIVE');
    expect(active.liveSnapshotId).to.match(/^[0-9a-f]{24}$/);
    const live = (await call('GET', `/workflows/${id}/graph`, { key })).body;
    let schedule = (await scheduleInfo(id, tick))!;
    expect(schedule.state.paused).to.equal(false);
    expect(schedule.state.note).to.include('New year greeting');
    expect(schedule.spec.timezone).to.equal('Europe/Paris');
    expect(parisTimes(schedule.info.nextActionTimes.slice(0, 1))).to.deep.equal(['09:00']);
    expect(schedule.info.nextActionTimes[0]!.toISOString()).to.match(/-01-01T08:00:00/);
    expect(schedule.memo).to.deep.include({ workflowId: id, nodeId: tick });
    expect(schedule.action).to.include({
      workflowType: 'runAutomation',
      taskQueue: harness().taskQueue,
      workflowId: `automation:${id}:schedule-${tick}`,
    });
    const input = schedule.action.args![0] as Record<string, any>;
    expect(input).to.deep.include({
      accountId: a.account.id,
      automationId: id,
      snapshotId: active.liveSnapshotId,
      entryNodeId: tick,
      trigger: { type: 'SCHEDULED_TRIGGER' },
    });
    expect(input.graph).to.deep.equal(live);

    // A fire of the schedule is a run of the live graph, counted on the workflow by the run itself.
    await scheduleOf(id, tick).trigger();
    const runId = await eventually(
      async () => (await scheduleOf(id, tick).describe()).info.recentActions[0]?.action.workflow.workflowId,
      'the run the schedule started',
    );
    expect(runId).to.match(new RegExp(`^automation:${id}:schedule-${tick}-`));
    const run = await runResult(runId);
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.nodeResults.map((r) => r.type)).to.deep.equal(['SCHEDULED_TRIGGER', 'DYNAMIC_TABLES']);
    // The run reads its scheduled time from the workflow id Temporal gave it.
    const scheduledTime = new Date(runId.slice(`automation:${id}:schedule-${tick}-`.length)).toISOString();
    expect(run.nodeResults[0]!.output).to.deep.equal({ scheduleId: `automation-${id}-${tick}`, nodeId: tick, scheduledTime });
    expect((await call('POST', '/tables/ticks/rows/list', { key, body: {} })).body.agentry.map((r: any) => r.data.Name)).to.deep.equal(['tick']);
    expect((await call('GET', `/workflows/${id}`, { key })).body).to.include({ runsCount: 1, runsFailedCount: 0 });

    // An ACTIVE workflow's node edit goes live at once: the schedule moves to the new cron and live snapshot.
    await put(a, `/workflows/${id}/nodes/${tick}`, scheduled('*/15 * * * 1-5', { startTime: '09:00', endTime: '17:00' }));
    const republished = (await call('GET', `/workflows/${id}`, { key })).body;
    expect(republished.liveSnapshotId).to.not.equal(active.liveSnapshotId);
    schedule = (await scheduleInfo(id, tick))!;
    expect((schedule.action.args![0] as Record<string, any>).snapshotId).to.equal(republished.liveSnapshotId);
    const times = parisTimes(schedule.info.nextActionTimes);
    expect(times.length).to.be.greaterThan(3);
    for (const time of times) expect(time >= '09:00' && time <= '16:45' && /:(00|15|30|45)$/.test(time), time).to.equal(true);
    const days = schedule.info.nextActionTimes.map((t) => t.toLocaleDateString('en-US', { timeZone: 'Europe/Paris', weekday: 'short' }));
    expect(days.filter((d) => d === 'Sat' || d === 'Sun')).to.deep.equal([]);

    // A scheduled node added to the ACTIVE workflow gets its own schedule.
    const second = await addNode(a, id, scheduled('@daily'));
    expect((await scheduleInfo(id, second))!.state.paused).to.equal(false);

    // DRAFT pauses both schedules, with a note saying why; they stay in Temporal.
    await put(a, `/workflows/${id}`, { status: 'DRAFT' });
    for (const nodeId of [tick, second]) {
      const paused = (await scheduleInfo(id, nodeId))!;
      expect(paused.state.paused).to.equal(true);
      expect(paused.state.note).to.match(/is DRAFT/);
    }
    // Publishing while DRAFT: the removed node's schedule is deleted, the other stays paused.
    expect((await call('DELETE', `/workflows/${id}/nodes/${second}`, { key })).status).to.equal(200);
    await publish(a, id);
    expect(await scheduleInfo(id, second)).to.equal(null);
    expect((await scheduleInfo(id, tick))!.state.paused).to.equal(true);

    // ACTIVE again resumes it; publishing a graph without the node removes its schedule.
    await put(a, `/workflows/${id}`, { status: 'ACTIVE' });
    expect((await scheduleInfo(id, tick))!.state.paused).to.equal(false);
    expect((await call('DELETE', `/workflows/${id}/nodes/${tick}`, { key })).status).to.equal(200);
    await publish(a, id);
    expect(await scheduleInfo(id, tick)).to.equal(null);
  });

  it('PAUSED and ARCHIVED pause too, renaming keeps the schedule, and a delete removes it', async () => {
    const a = await newAccount();
    const id = (await call('POST', '/workflows', { key: a.userKey, body: { name: 'Weekly digest' } })).body.id;
    const node = await addNode(a, id, scheduled('@weekly'));
    await put(a, `/workflows/${id}`, { status: 'ACTIVE' });
    await put(a, `/workflows/${id}`, { name: 'Weekly digest v2' });
    expect((await scheduleInfo(id, node))!.state).to.deep.include({
      paused: false,
      note: `Node "scheduled_trigger" of workflow "Weekly digest v2" (${id}), on its live snapshot`,
    });
    for (const status of ['PAUSED', 'ARCHIVED']) {
      await put(a, `/workflows/${id}`, { status });
      expect((await scheduleInfo(id, node))!.state).to.deep.include({ paused: true });
      expect((await scheduleInfo(id, node))!.state.note).to.include(`"Weekly digest v2" (${id}) is ${status}`);
    }
    await put(a, `/workflows/${id}`, { status: 'ACTIVE' });
    expect((await call('DELETE', `/workflows/${id}`, { key: a.userKey })).status).to.equal(204);
    expect(await scheduleInfo(id, node)).to.equal(null);
    expect((await call('GET', '/workflows?status=DELETED', { key: a.userKey })).body.agentry.map((w: { id: number }) => w.id)).to.include(id);
  });

  it('undoes the schedule requests that succeeded when a later one fails', async () => {
    const temporal = new TemporalAutomationSchedules(harness().env.client, harness().taskQueue, nodeFactsOf);
    const node = (n: number): GraphNode => ({
      nodeId: `node_00000000-0000-4000-8000-00000000000${n}`,
      alias: `tick_${n}`,
      position: { positionX: 0, positionY: 0 },
      type: 'SCHEDULED_TRIGGER',
      edges: [],
      data: { type: 'SCHEDULED_TRIGGER', cronExpression: '0 9 1 1 *', timezone: 'UTC', startTime: null, endTime: null },
    });
    const source = (nodes: GraphNode[]): ScheduleSource => ({
      accountId: 1,
      automationId: 990_001,
      name: 'Undo',
      status: 'ACTIVE',
      deleted: false,
      live: { snapshotId: 'a'.repeat(24), graph: { nodes, edges: [] } },
    });
    const [one, two, three] = [node(1), node(2), node(3)];
    const none = { ...source([]), live: null };
    await reconcileSchedules(temporal, none, source([one]));
    expect(await scheduleInfo(990_001, one.nodeId)).to.not.equal(null);

    // Publishing [two, three] over [one]: one's delete and two's create succeed, three's create fails.
    let calls = 0;
    const failing = {
      save: (...args: Parameters<typeof temporal.save>) => (++calls === 3 ? Promise.reject(new Error('Temporal is gone')) : temporal.save(...args)),
      delete: (id: string) => (++calls, temporal.delete(id)),
    };
    let failure: unknown;
    await reconcileSchedules(failing, source([one]), source([two, three])).catch((error) => (failure = error));
    expect((failure as Error).message).to.equal('Temporal is gone');
    expect((await scheduleInfo(990_001, one.nodeId))?.state.paused).to.equal(false);
    expect(await scheduleInfo(990_001, two.nodeId)).to.equal(null);
    expect(await scheduleInfo(990_001, three.nodeId)).to.equal(null);
    await reconcileSchedules(temporal, source([one]), none);
  });

  it('answers 503 and changes nothing when Temporal cannot take the schedule', async () => {
    const a = await newAccount();
    const id = (await call('POST', '/workflows', { key: a.userKey, body: { name: 'Unreachable' } })).body.id;
    await addNode(a, id, scheduled('0 8 * * *'));
    // An API whose Temporal client points at a port nobody listens on, without retries.
    const connection = await Connection.lazy({ address: '127.0.0.1:1', interceptors: [], connectTimeout: 1000 });
    const { server, origin } = await listen({ temporal: new Client({ connection }) });
    try {
      const res = await call('PUT', `/workflows/${id}`, { key: a.userKey, body: { status: 'ACTIVE' }, baseUrl: `${origin}/public/v1` });
      expect(res.status, res.text).to.equal(503);
      expect(res.body.message).to.match(/Temporal/);
    } finally {
      server.close();
      await connection.close();
    }
    // Neither the status nor the publish that came with it was saved.
    expect((await call('GET', `/workflows/${id}`, { key: a.userKey })).body).to.include({ status: 'DRAFT', liveSnapshotId: null });
  });

  it('on an ACTIVE workflow, adding, changing and deleting a scheduled node takes effect at once; a DRAFT one waits for publish', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const id = (await call('POST', '/workflows', { key, body: { name: 'Live edits' } })).body.id;
    await put(a, `/workflows/${id}`, { status: 'ACTIVE' });
    const firstLive = (await call('GET', `/workflows/${id}`, { key })).body.liveSnapshotId;

    const tick = await addNode(a, id, scheduled('0 9 1 1 *'));
    const live = (await call('GET', `/workflows/${id}`, { key })).body.liveSnapshotId;
    expect(live).to.not.equal(firstLive);
    expect(parisTimes((await scheduleInfo(id, tick))!.info.nextActionTimes.slice(0, 1))).to.deep.equal(['09:00']);

    await put(a, `/workflows/${id}/nodes/${tick}`, scheduled('30 7 1 1 *'));
    expect(parisTimes((await scheduleInfo(id, tick))!.info.nextActionTimes.slice(0, 1))).to.deep.equal(['07:30']);
    const input = (await scheduleInfo(id, tick))!.action.args![0] as { snapshotId: string };
    expect(input.snapshotId).to.equal((await call('GET', `/workflows/${id}`, { key })).body.liveSnapshotId);

    expect((await call('DELETE', `/workflows/${id}/nodes/${tick}`, { key })).status).to.equal(200);
    expect(await scheduleInfo(id, tick)).to.equal(null);

    // A DRAFT workflow's edits stay in its draft until published.
    await put(a, `/workflows/${id}`, { status: 'DRAFT' });
    const before = (await call('GET', `/workflows/${id}`, { key })).body.liveSnapshotId;
    const later = await addNode(a, id, scheduled('0 6 * * *'));
    expect((await call('GET', `/workflows/${id}`, { key })).body.liveSnapshotId).to.equal(before);
    expect(await scheduleInfo(id, later)).to.equal(null);
    // ACTIVE again publishes the changed draft, and the node gets its schedule.
    await put(a, `/workflows/${id}`, { status: 'ACTIVE' });
    expect((await call('GET', `/workflows/${id}`, { key })).body.liveSnapshotId).to.not.equal(before);
    expect((await scheduleInfo(id, later))!.state.paused).to.equal(false);
  });
});
