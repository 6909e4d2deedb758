import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { harness } from '../setup/harness.js';
import { call } from '../setup/http.js';
import { eventually } from '../setup/runs.js';
import { hookedWorkflow, newRig, startWorker, stopWorker, type Rig, type WorkerProcess } from './processes.js';

/**
 * The Stack Trace tab of the Temporal UI asks an open workflow the `__stack_trace` query. A worker started as
 * `npm run worker` and `npm start` start it leaves the SDK's per-promise stack traces out of its workflow threads
 * (worker/workflow-threads.cjs), unless WORKFLOW_STACK_TRACES=true.
 */
describe('workflow stack traces of a worker process (WORKFLOW_STACK_TRACES)', function () {
  this.timeout(120_000);
  let rig: Rig;
  let worker: WorkerProcess | undefined;
  // An HTTP service that holds every call until released: the run waits in its API node, its workflow open.
  const held: ServerResponse[] = [];
  const service = createServer((_req, res) => held.push(res));
  const release = () => held.splice(0).forEach((res) => res.end('{"ok":true}'));
  let hookId: string;
  let workflowId: number;

  before(async () => {
    rig = await newRig();
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}/held`;
    ({ id: workflowId, hookId } = await hookedWorkflow(rig, 'stack-traces', [{ type: 'API', data: { url } }]));
  });
  after(async () => {
    release();
    service.close();
    await rig.close(worker);
  });

  /** Sends a webhook, waits until its run holds a call, asks the run for its stack trace, lets the run finish. */
  async function stackTraceOfAnOpenRun(): Promise<PromiseSettledResult<string>> {
    const res = await call('POST', `/webhooks/${hookId}`, { baseUrl: rig.api.origin, body: {} });
    expect(res.status).to.equal(202);
    await eventually(async () => (held.length ? true : undefined), 'the API node to call the service', 60_000);
    const handle = harness().env.client.workflow.getHandle(`automation:${workflowId}:event-${res.body.eventId}`);
    const [trace] = await Promise.allSettled([handle.query<string>('__stack_trace')]);
    release();
    expect((await handle.result()).successful).to.equal(true);
    return trace;
  }

  it('by default the query answers that stack traces are off, and the run goes on', async () => {
    worker = await startWorker(rig.plant);
    const trace = await stackTraceOfAnOpenRun();
    expect(trace.status).to.equal('rejected');
    expect(String((trace as PromiseRejectedResult).reason?.message)).to.match(/stack traces are not enabled/);
    expect(worker.output.join('')).not.to.include('workflow stack traces are on');
  });

  it('with WORKFLOW_STACK_TRACES=true the query answers where the run waits', async () => {
    if (worker) await stopWorker(worker);
    worker = await startWorker(rig.plant, undefined, { WORKFLOW_STACK_TRACES: 'true' });
    const trace = await stackTraceOfAnOpenRun();
    expect(trace.status).to.equal('fulfilled');
    // Source-mapped: the interpreter's own file, not the bundle's.
    expect((trace as PromiseFulfilledResult<string>).value).to.match(/workflows\/.*\.ts:\d+/);
  });
});
