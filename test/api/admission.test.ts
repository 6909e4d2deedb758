import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { activeChain } from './active-automations.helpers.js';
import { waitUntil } from '../setup/runs.js';
import { OutboxDispatcher } from '../../worker/outbox-dispatcher.js';

/**
 * A local service for the runs' API node: each POST holds its answer `delayMs` (then answers 500 while `failing`),
 * and the service records the bodies in arrival order and the most requests it ever held at once (the runs in flight,
 * seen from outside).
 */
function slowService(delayMs: number) {
  const seen: { body: string; at: number }[] = [];
  const state = { open: 0, maxOpen: 0, failing: false, seen, origin: '', server: undefined as unknown as Server };
  state.server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      state.open += 1;
      state.maxOpen = Math.max(state.maxOpen, state.open);
      seen.push({ body, at: Date.now() });
      setTimeout(() => {
        state.open -= 1;
        res.statusCode = state.failing ? 500 : 200;
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      }, delayMs);
    });
  });
  return new Promise<typeof state>((resolve) =>
    state.server.listen(0, '127.0.0.1', () => resolve({ ...state, origin: `http://127.0.0.1:${(state.server.address() as AddressInfo).port}` })),
  ).then((s) => Object.assign(state, { origin: s.origin }));
}

const sql = async <T>(text: string, params: (string | number)[] = []): Promise<T[]> => (await harness().orm.em.getKnex().raw(text, params)).rows;

/** The runs in flight as admission counts them. */
const inFlight = async () => Number((await sql<{ n: string }>(`select count(*) as n from admitted_runs where finished_at is null`))[0]!.n);

describe('admission control of automation runs', function () {
  this.timeout(90_000);
  let dispatcher: OutboxDispatcher;

  /** Replaces the harness's dispatcher by one with the bound `runConcurrency` (two, to show they share the bound). */
  async function withBound(runConcurrency: number): Promise<void> {
    const h = harness();
    await h.dispatcher.stop();
    const deps = { orm: h.orm, temporal: h.env.client, taskQueue: h.taskQueue, databaseUrl: h.databaseUrl, pollIntervalMs: 500 };
    dispatcher = new OutboxDispatcher({ ...deps, admission: { runConcurrency } });
    dispatcher.start();
    extra = new OutboxDispatcher({ ...deps, admission: { runConcurrency } });
    extra.start();
  }
  let extra: OutboxDispatcher;

  afterEach(async () => {
    await dispatcher?.stop();
    await extra?.stop();
    harness().dispatcher.start();
  });

  async function hookedWorkflow(key: string, origin: string, concurrencyLimit?: number) {
    const hook = (await call('POST', '/incoming-webhooks', { key, body: { name: 'Burst', useAuthentication: false } })).body;
    const workflow = await activeChain(key, 'Slow call', [
      { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in', triggerByWebhookIds: [hook.id] } },
      { type: 'API', data: { url: `${origin}/slow`, method: 'POST', body: '{trigger_payload}' } },
    ]);
    if (concurrencyLimit !== undefined) {
      const res = await call('PUT', `/workflows/${workflow.id}`, { key, body: { concurrencyLimit } });
      expect([res.status, res.body.concurrencyLimit], res.text).to.deep.equal([200, concurrencyLimit]);
    }
    const send = async (n: number) => {
      const res = await call('POST', `/webhooks/${hook.id}`, { baseUrl: harness().origin, body: { n } });
      expect(res.status, res.text).to.equal(202);
      return res.body.eventId as string;
    };
    return { id: workflow.id, send };
  }

  const endedRuns = async (workflowId: number) =>
    sql<{ id: string; event_id: string; status: string }>(
      `select id, event_id, status from workflow_runs where workflow_id = ? and status <> 'running'`,
      [workflowId],
    );

  it('runs a burst larger than the bound entirely, once per event, never more than the bound at once', async () => {
    await withBound(3);
    const service = await slowService(150);
    try {
      const { userKey: key } = await newAccount();
      const wf = await hookedWorkflow(key, service.origin);
      const eventIds = await Promise.all(Array.from({ length: 24 }, (_, n) => wf.send(n)));
      const samples: number[] = [];
      await waitUntil(
        async () => {
          samples.push(await inFlight());
          return (await endedRuns(wf.id)).length;
        },
        (ended) => ended >= 24,
        'every run of the burst ended',
        60_000,
      );
      const runs = await endedRuns(wf.id);
      expect(runs.map((r) => r.event_id).sort()).to.deep.equal([...eventIds].sort());
      expect(runs.every((r) => r.status === 'successful')).to.equal(true);
      expect(service.seen.map((s) => JSON.parse(s.body).n).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 24 }, (_, n) => n));
      expect(Math.max(...samples)).to.be.at.most(3);
      expect(service.maxOpen).to.be.within(2, 3);
      expect(await inFlight()).to.equal(0);
    } finally {
      service.server.close();
    }
  });

  it("admits another account's event before the first account's backlog drains", async () => {
    await withBound(2);
    const service = await slowService(200);
    try {
      const first = await hookedWorkflow((await newAccount()).userKey, service.origin);
      const second = await hookedWorkflow((await newAccount()).userKey, service.origin);
      await Promise.all(Array.from({ length: 20 }, (_, n) => first.send(n)));
      await second.send(1000);
      await waitUntil(
        () => endedRuns(second.id),
        (runs) => runs.length === 1,
        "the second account's run ended",
      );
      // 20 runs two at a time take about 2 s; the second account's run ended long before the last of them.
      expect((await endedRuns(first.id)).length).to.be.below(12);
      await waitUntil(
        () => endedRuns(first.id),
        (runs) => runs.length === 20,
        'the backlog drained',
        60_000,
      );
    } finally {
      service.server.close();
    }
  });

  it('runs the events of a workflow limited to one run at a time one after the other, in order', async () => {
    await withBound(10);
    const service = await slowService(100);
    try {
      const wf = await hookedWorkflow((await newAccount()).userKey, service.origin, 1);
      for (let n = 0; n < 6; n += 1) await wf.send(n);
      await waitUntil(
        () => endedRuns(wf.id),
        (runs) => runs.length === 6,
        'the six runs ended',
        60_000,
      );
      expect(service.seen.map((s) => JSON.parse(s.body).n)).to.deep.equal([0, 1, 2, 3, 4, 5]);
      expect(service.maxOpen).to.equal(1);
    } finally {
      service.server.close();
    }
  });

  it('admits manual runs under the same bound, and answers their deterministic id at once', async () => {
    await withBound(2);
    const service = await slowService(600);
    try {
      const { userKey: key } = await newAccount();
      const wf = await hookedWorkflow(key, service.origin);
      const started = await Promise.all(
        Array.from({ length: 8 }, (_, n) => call('POST', `/workflows/${wf.id}/runs`, { key, body: { payload: { n } } })),
      );
      expect(started.map((r) => r.status)).to.deep.equal(Array(8).fill(202));
      const ids = started.map((r) => r.body.id as string);
      expect(ids.every((id) => id.startsWith(`automation:${wf.id}:manual-`))).to.equal(true);
      // 8 runs of 0.6 s, two at a time: the last ones wait for a slot longer than the answer waits, so they are
      // answered before they start.
      expect(started.some((r) => r.body.runId === null)).to.equal(true);
      const runs = await waitUntil(
        () => endedRuns(wf.id),
        (r) => r.length === 8,
        'the manual runs ended',
        60_000,
      );
      expect(runs.map((r) => r.id).sort()).to.deep.equal([...ids].sort());
      expect(service.maxOpen).to.equal(2);
    } finally {
      service.server.close();
    }
  });

  it('makes a scheduled run wait for a slot before its first node', async () => {
    await withBound(1);
    const service = await slowService(1_500);
    try {
      const { userKey: key } = await newAccount();
      const busy = await hookedWorkflow(key, service.origin);
      const scheduled = await activeChain(key, 'Yearly', [
        { type: 'SCHEDULED_TRIGGER', data: { cronExpression: '0 9 1 1 *', timezone: 'UTC', startTime: null, endTime: null } },
        { type: 'API', data: { url: `${service.origin}/slow`, method: 'POST', body: '"scheduled"' } },
      ]);
      await busy.send(1);
      await waitUntil(
        async () => service.seen.length,
        (n) => n === 1,
        'the webhook run to hold the only slot',
      );
      await harness().env.client.schedule.getHandle(`automation-${scheduled.id}-${scheduled.nodeIds[0]}`).trigger();
      await waitUntil(
        () => endedRuns(scheduled.id),
        (runs) => runs.length === 1,
        'the scheduled run ended',
        30_000,
      );
      // The scheduled run called the service only once the webhook run had answered and freed the slot.
      expect(service.seen.map((s) => s.body)).to.deep.equal(['{"n":1}', '"scheduled"']);
      expect(service.maxOpen).to.equal(1);
    } finally {
      service.server.close();
    }
  });

  it("runs a retry job's retries behind fresh runs, in the background runs' share of the bound", async () => {
    await withBound(8); // one slot of eight for background runs
    const service = await slowService(300);
    try {
      const { userKey: key } = await newAccount();
      const failing = await hookedWorkflow(key, service.origin);
      const since = new Date(Date.now() - 60_000).toISOString();
      service.failing = true;
      await Promise.all(Array.from({ length: 10 }, (_, n) => failing.send(n)));
      await waitUntil(
        () => endedRuns(failing.id),
        (runs) => runs.length === 10 && runs.every((r) => r.status === 'failed'),
        'the ten runs failed',
        60_000,
      );
      service.failing = false;
      const filter = { status: 'failed', from: since, to: new Date(Date.now() + 60_000).toISOString() };
      await waitUntil(
        () => call('POST', `/workflows/${failing.id}/retries`, { key, body: { filter, dryRun: true } }),
        (res) => res.body.count === 10,
        'visibility to list the failed runs',
      );
      const failedCalls = service.seen.length;
      const job = await call('POST', `/workflows/${failing.id}/retries`, { key, body: { filter, from: 'start' } });
      expect(job.status, job.text).to.equal(202);
      const jobPath = `/workflows/${failing.id}/retries/${job.body.id}`;
      await waitUntil(
        () => call('GET', jobPath, { key }),
        (res) => res.body.succeeded >= 1,
        'a first retry to succeed',
      );
      // Another account's fresh runs, while the job has most of its retries to go: they are admitted at once and end
      // long before the job, whose retries run one at a time (300 ms each).
      const fresh = await hookedWorkflow((await newAccount()).userKey, service.origin);
      await Promise.all([100, 101, 102].map((n) => fresh.send(n)));
      await waitUntil(
        () => endedRuns(fresh.id),
        (runs) => runs.length === 3,
        'the fresh runs ended',
      );
      expect((await call('GET', jobPath, { key })).body.succeeded).to.be.below(7);
      const done = await waitUntil(
        () => call('GET', jobPath, { key }),
        (res) => res.body.status === 'completed' && res.body.running === 0,
        'the job to end',
        60_000,
      );
      expect(done.body).to.include({ planned: 10, started: 10, succeeded: 10, failed: 0 });
      // The service saw the retries one after the other: each arrived once the one before had been answered.
      const retried = service.seen.slice(failedCalls).filter((s) => JSON.parse(s.body).n < 100);
      expect(retried.map((s) => JSON.parse(s.body).n).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 10 }, (_, n) => n));
      const gaps = retried.slice(1).map((s, i) => s.at - retried[i]!.at);
      expect(Math.min(...gaps)).to.be.at.least(290);
      expect(await inFlight()).to.equal(0);
    } finally {
      service.server.close();
    }
  });

  it('refuses a concurrency limit that is not a positive integer, naming the field', async () => {
    const { userKey: key } = await newAccount();
    const id = (await call('POST', '/workflows', { key, body: { name: 'Limited', concurrencyLimit: 3 } })).body.id;
    expect((await call('GET', `/workflows/${id}`, { key })).body.concurrencyLimit).to.equal(3);
    for (const concurrencyLimit of [0, 1.5, 'two']) {
      const res = await call('PUT', `/workflows/${id}`, { key, body: { concurrencyLimit } });
      expect(res.status, res.text).to.equal(400);
      expect(res.text).to.contain('concurrencyLimit');
    }
    const cleared = await call('PUT', `/workflows/${id}`, { key, body: { concurrencyLimit: null } });
    expect([cleared.status, cleared.body.concurrencyLimit]).to.deep.equal([200, null]);
  });
});
