import { Client, Connection } from '@temporalio/client';
import { expect } from 'chai';
import { WorkerHeartbeat } from '../../db/automations/worker-heartbeat.entity.js';
import { harness, listen } from '../setup/harness.js';
import { call } from '../setup/http.js';

describe('GET /healthz', function () {
  this.timeout(30_000);

  it('reports the database and Temporal reachable with 200', async () => {
    const res = await call('GET', '/healthz', { baseUrl: harness().origin });
    expect(res.status).to.equal(200);
    expect(res.body.ok).to.equal(true);
    expect(res.body.database.ok).to.equal(true);
    expect(res.body.temporal).to.include({ ok: true, namespace: 'default' });
    expect(res.body).to.not.have.property('worker');
  });

  it('with worker=true runs a workflow started by the API client on the worker, whose activity writes to PostgreSQL', async () => {
    const em = harness().orm.em.fork();
    const before = await em.find(WorkerHeartbeat, {});
    const res = await call('GET', '/healthz?worker=true', { baseUrl: harness().origin });
    expect(res.status).to.equal(200);
    expect(res.body.worker).to.include({ ok: true, taskQueue: harness().taskQueue, identity: harness().worker.options.identity });

    const row = await em.fork().findOneOrFail(WorkerHeartbeat, { identity: res.body.worker.identity });
    const previous = before.find((b) => b.identity === row.identity)?.checks ?? 0;
    expect(row.checks).to.equal(previous + 1);
    expect(row.taskQueue).to.equal(harness().taskQueue);

    // The run is a real Temporal execution: its history shows the activity completed on the worker.
    const handle = harness().env.client.workflow.getHandle(res.body.worker.workflowId);
    const description = await handle.describe();
    expect(description.status.name).to.equal('COMPLETED');
    expect(description.type).to.equal('checkWorkerHealth');
    const history = await handle.fetchHistory();
    const completed = history.events!.filter((e) => e.activityTaskCompletedEventAttributes);
    expect(completed).to.have.length(1);
  });

  it('answers 503 naming Temporal when Temporal does not answer', async () => {
    const deadTemporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500 }) });
    const { server, origin } = await listen({ temporal: deadTemporal });
    try {
      const res = await call('GET', '/healthz', { baseUrl: origin });
      expect(res.status).to.equal(503);
      expect(res.body.ok).to.equal(false);
      expect(res.body.database.ok).to.equal(true);
      expect(res.body.temporal.ok).to.equal(false);
      expect(res.body.temporal.error).to.be.a('string');
    } finally {
      server.close();
    }
  });

  it('answers 503 naming the worker when no worker polls the task queue', async () => {
    const { server, origin } = await listen({
      config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 1024, taskQueue: 'nobody-polls-this-queue' },
    });
    try {
      const res = await call('GET', '/healthz?worker=true', { baseUrl: origin });
      expect(res.status).to.equal(503);
      expect(res.body.temporal.ok).to.equal(true);
      expect(res.body.worker).to.include({ ok: false, taskQueue: 'nobody-polls-this-queue' });
    } finally {
      server.close();
    }
  });

  it('refuses an invalid query with 400 naming the field', async () => {
    const res = await call('GET', '/healthz?worker=maybe', { baseUrl: harness().origin });
    expect(res.status).to.equal(400);
    expect(res.body.details.issues[0].path).to.equal('query.worker');
  });
});
