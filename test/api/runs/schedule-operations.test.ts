import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { ledgerRuns, waitUntil } from '../../setup/runs.js';
import { call, newAccount } from '../../setup/http.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('schedule operations: backfill, trigger, next times', function () {
  this.timeout(60_000);

  it('backfills 10 missed daily occurrences as 10 runs with their scheduled times, runs now, and refuses what does not fit', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const stranger = await newAccount();
    await call('POST', '/tables', { key, body: { name: 'ticks', columns: [{ name: 'At', type: 'string' }] } });
    const table = (await call('GET', '/tables/ticks', { key })).body;
    const id = (await call('POST', '/workflows', { key, body: { name: 'Daily digest' } })).body.id as number;
    // Daily, twelve hours from now: the schedule never fires by itself while the test runs.
    const hour = (new Date().getUTCHours() + 12) % 24;
    const add = async (body: unknown) => (await call('POST', `/workflows/${id}/nodes`, { key, body })).body.nodes.at(-1).nodeId as string;
    const tick = await add({
      type: 'SCHEDULED_TRIGGER',
      data: { cronExpression: `0 ${hour} * * *`, timezone: 'UTC', startTime: null, endTime: null },
    });
    const write = await add({
      type: 'DYNAMIC_TABLES',
      data: { action: 'CREATE', tableId: table.id, rowData: { At: '{trigger_payload.scheduledTime}' } },
    });
    await call('POST', `/workflows/${id}/edges`, { key, body: { source: tick, handle: 'default', targetEdge: write } });
    const path = (op: string) => `/workflows/${id}/schedule/${op}`;
    const now = Date.now();
    const window = { from: new Date(now - 10 * DAY).toISOString(), to: new Date(now).toISOString() };

    // A DRAFT workflow never published has no schedule; another account's workflow is not found.
    const draft = await call('POST', path('backfill'), { key, body: window });
    expect([draft.status, draft.body.message]).to.deep.equal([409, `Workflow ${id} has no schedule: its live graph has no SCHEDULED_TRIGGER node`]);
    expect((await call('GET', `/workflows/${id}`, { key })).body.schedules).to.deep.equal([]);
    expect((await call('PUT', `/workflows/${id}`, { key, body: { status: 'ACTIVE' } })).status).to.equal(200);
    expect((await call('POST', path('backfill'), { key: stranger.userKey, body: window })).status).to.equal(404);
    expect((await call('POST', path('trigger'), { key: stranger.userKey, body: {} })).status).to.equal(404);

    // The workflow shows its schedule's next times (extension).
    const [schedule] = (await call('GET', `/workflows/${id}`, { key })).body.schedules;
    expect(schedule).to.include({ nodeId: tick, scheduleId: `automation-${id}-${tick}`, paused: false });
    const next = schedule.nextTimes.map((t: string) => Date.parse(t));
    expect(next.length).to.be.greaterThan(2);
    expect(next[0]).to.be.within(now, now + DAY);
    expect(
      next.every(
        (t: number, i: number) => new Date(t).getUTCHours() === hour && new Date(t).getUTCMinutes() === 0 && (i === 0 || t - next[i - 1] === DAY),
      ),
    ).to.equal(true);

    // Bad windows name their field.
    for (const [body, message] of [
      [{ ...window, to: new Date(now + HOUR).toISOString() }, /may not be in the future/],
      [{ from: window.to, to: window.from }, /to must be after from/],
      [{ from: new Date(now - 40 * DAY).toISOString(), to: window.to }, /at most 31 days/],
      [{ ...window, overlap: 'sometimes' }, /overlap/],
      [{ ...window, nodeId: write }, /is not a SCHEDULED_TRIGGER node/],
    ] as const) {
      const res = await call('POST', path('backfill'), { key, body });
      expect(res.status, res.text).to.equal(400);
      expect(res.text).to.match(message);
    }
    expect(await ledgerRuns(id)).to.deep.equal([]);

    // The backfill: ten occurrences, each a run that gets its scheduled time as its trigger payload's.
    const backfill = await call('POST', path('backfill'), { key, body: window });
    expect(backfill.status, backfill.text).to.equal(202);
    expect(backfill.body).to.include({ workflowId: id, nodeId: tick, overlap: 'allow-all', count: 10 });
    const times: string[] = backfill.body.scheduledTimes;
    expect(times.map((t) => Date.parse(t))).to.deep.equal(Array.from({ length: 10 }, (_, i) => next[0] - (10 - i) * DAY));
    const rows = async () =>
      ((await call('POST', '/tables/ticks/rows/list', { key, body: { limit: 50 } })).body.agentry as { data: { At: string } }[]).map(
        (r) => r.data.At,
      );
    expect((await waitUntil(rows, (at) => at.length >= 10, 'a row per backfilled occurrence')).sort()).to.deep.equal(times);
    const runs = await waitUntil(
      () => ledgerRuns(id),
      (r) => r.length === 10 && r.every((run) => run.status !== 'running'),
      'the runs to end',
    );
    expect(runs.map((r) => [r.status, r.trigger_type])).to.deep.equal(times.map(() => ['successful', 'SCHEDULED_TRIGGER']));
    expect(runs.map((r) => r.id).sort()).to.deep.equal(times.map((t) => `automation:${id}:schedule-${tick}-${t.replace('.000Z', 'Z')}`));
    // The Temporal UI shows them as the schedule's actions: its recent actions are the backfilled occurrences.
    const described = await harness().env.client.schedule.getHandle(backfill.body.scheduleId).describe();
    expect(described.info.recentActions.map((a) => a.action.workflow.workflowId).sort()).to.deep.equal(runs.map((r) => r.id).sort());

    // Run now: one more run, its scheduled time now.
    const before = Date.now() - 1000;
    const triggered = await call('POST', path('trigger'), { key, body: {} });
    expect(triggered.status, triggered.text).to.equal(202);
    expect(triggered.body).to.include({ nodeId: tick, overlap: 'allow-all' });
    const now11 = (await waitUntil(rows, (at) => at.length === 11, 'the triggered run')).filter((t) => !times.includes(t));
    expect(Date.parse(now11[0]!)).to.be.within(before, Date.now());

    // A workflow set DRAFT keeps its schedule paused: nothing to backfill or trigger.
    expect((await call('PUT', `/workflows/${id}`, { key, body: { status: 'DRAFT' } })).status).to.equal(200);
    const paused = await call('POST', path('trigger'), { key, body: {} });
    expect([paused.status, paused.body.message]).to.deep.equal([409, `Workflow ${id} is DRAFT, so its schedules are paused: set it ACTIVE first`]);
    expect((await call('GET', `/workflows/${id}`, { key })).body.schedules[0]).to.include({ paused: true });
  });
});
