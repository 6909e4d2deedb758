/**
 * PostgreSQL restarted under load (real processes): a PostgreSQL server of the test's own is crashed
 * (`pg_ctl stop -m immediate`) while callers post webhooks to the API (in this process) and a worker process runs
 * them. While it is down the API answers 503 naming the database (a widget request from a page too), never 500 and never late; once it is back the API
 * and the worker recover on their own, and every accepted webhook is run exactly once. PG_RESTART_BURST webhooks are
 * accepted around the outage (half before, half after; 60 by default), which lasts PG_RESTART_DOWN_MS (10 s by
 * default: longer than the 7 s of retries that the activities of a run had before they waited outages out).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { INCOMING_WEBHOOK_EVENT } from '../../db/automations/incoming-webhooks.service.js';
import { call } from '../setup/http.js';
import { startPrivatePostgres, type PrivatePostgres } from '../setup/private-postgres.js';
import { waitUntil } from '../setup/runs.js';
import { hookedWorkflow, newRig, startWorker, type Rig, type WorkerProcess } from './processes.js';
import { summary, webhookLoad } from './webhook-load.js';

const BURST = Number(process.env.PG_RESTART_BURST ?? 60);
const DOWN_MS = Number(process.env.PG_RESTART_DOWN_MS ?? 10_000);
const UNAVAILABLE = { code: 'internal', message: 'The database is unavailable; retry later' };

describe('PostgreSQL restarted under load (a PostgreSQL server of its own, a real worker process)', function () {
  this.timeout(180_000);
  let pg: PrivatePostgres | undefined;
  let rig: Rig | undefined;
  let worker: WorkerProcess | undefined;

  before(async () => {
    pg = await startPrivatePostgres();
    rig = await newRig(undefined, pg.url);
    worker = await startWorker(rig.plant);
  });
  after(async () => {
    await pg?.start(); // a test that failed during the outage leaves the server down
    await rig?.close(worker);
    await pg?.destroy();
  });

  it('answers 503 while the database is down, recovers on its own, and runs every accepted webhook exactly once', async () => {
    const { plant, api, key } = rig!;
    const { id, hookId } = await hookedWorkflow(rig!, 'restart', [{ type: 'DYNAMIC_TABLES', data: { action: 'CREATE', rowData: { Step: 'done' } } }]);
    const load = webhookLoad(api.origin, hookId);
    await load.until(BURST / 2);

    const downAt = Date.now();
    await pg!.stop({ mode: 'immediate' });
    const stoppedAt = Date.now();
    const healthDown = await call('GET', '/healthz', { baseUrl: api.origin });
    // A widget request from a page reads the agent's allowed origins first: that read fails like any other.
    const widgetDown = await call('POST', `/widget/v1/agents/${randomUUID()}/sessions`, {
      baseUrl: api.origin,
      headers: { origin: 'https://shop.example.test' },
      body: {},
    });
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    const upAt = Date.now();
    await pg!.start();
    const startedAt = Date.now();
    await load.until(1, [202], 20_000);
    const recoveredAt = Date.now();
    await load.until(BURST / 2);
    await load.stop();
    const healthUp = await call('GET', '/healthz', { baseUrl: api.origin });

    const { answers } = load;
    const failures = answers.filter((a) => a.status !== 202 && a.status !== 503);
    expect(summary(failures), `every answer is 202 or 503 within 5 s; e.g. ${JSON.stringify(failures.slice(0, 2))}`).to.deep.equal({});
    expect(answers.filter((a) => a.endedAt < downAt && a.status !== 202)).to.deep.equal([]);
    const whileDown = answers.filter((a) => a.startedAt >= stoppedAt && a.endedAt <= upAt);
    expect(whileDown.length, 'calls answered while the database was down').to.be.above(0);
    expect(summary(whileDown)).to.have.keys('503');
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(a.body).to.deep.equal(UNAVAILABLE);
      expect(a.retryAfter).to.equal('5');
    }
    expect([widgetDown.status, widgetDown.body]).to.deep.equal([503, UNAVAILABLE]);
    expect(healthDown.status).to.equal(503);
    expect(healthDown.body.database.ok).to.equal(false);
    expect(healthUp.status).to.equal(200);
    expect(recoveredAt - startedAt, 'ms from the server accepting connections to the next 202').to.be.below(10_000);

    // Every accepted webhook runs once; a call in flight when the server crashed may have committed its event
    // without hearing so (a 503): such an event runs too, once.
    const knex = plant.orm.em.getKnex();
    const state = async () => ({
      outbox: (
        await knex.raw(`select count(*)::int as n, count(dispatched_at)::int as dispatched from outbox_events where type = ?`, [
          INCOMING_WEBHOOK_EVENT,
        ])
      ).rows[0] as { n: number; dispatched: number },
      runs: (await knex.raw(`select status, count(*)::int as n from workflow_runs where workflow_id = ? group by status`, [id])).rows as {
        status: string;
        n: number;
      }[],
    });
    const ended = await waitUntil(
      state,
      ({ outbox, runs }) =>
        outbox.dispatched === outbox.n && runs.reduce((sum, r) => sum + r.n, 0) === outbox.n && runs.every((r) => r.status !== 'running'),
      'every accepted webhook to be dispatched and its run to end',
      90_000,
    );
    const accepted = answers.filter((a) => a.status === 202);
    const ambiguous = answers.filter((a) => a.status === 503 && a.startedAt < stoppedAt).length;
    expect(ended.outbox.n).to.be.within(accepted.length, accepted.length + ambiguous);
    expect(ended.runs).to.deep.equal([{ status: 'successful', n: ended.outbox.n }]);
    const successful = new Set(
      (await knex.raw(`select id from workflow_runs where workflow_id = ? and status = 'successful'`, [id])).rows.map((r: { id: string }) => r.id),
    );
    expect(accepted.filter((a) => !successful.has(`automation:${id}:event-${a.eventId}`))).to.deep.equal([]);
    const rows = await call('POST', '/tables/restart/rows/count', { key, baseUrl: `${api.origin}/public/v1`, body: {} });
    expect(rows.body.count).to.equal(ended.outbox.n);
    expect(worker!.child.exitCode, `the worker process exited:\n${worker!.output.join('')}`).to.equal(null);
    console.log(
      `      answers ${JSON.stringify(summary(answers))}; down ${upAt - downAt} ms; 202 again ${recoveredAt - startedAt} ms after the restart`,
    );
  });
});
