import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { sweepRunLedger } from '../../worker/run-ledger-sweep.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { eventually, ledgerRuns } from '../setup/runs.js';

describe('run ledger sweep', function () {
  this.timeout(60_000);
  let hanging: Server;
  let origin: string;
  before(async () => {
    hanging = createServer(() => {}); // never answers
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  });
  after(() => {
    hanging.closeAllConnections();
    hanging.close();
  });

  it('a run terminated from outside (Temporal UI or CLI) is counted as failed once the sweep sees it', async () => {
    const { userKey: key } = await newAccount();
    const id = (await call('POST', '/workflows', { key, body: { name: 'Hangs' } })).body.id;
    const node = (await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'API', data: { url: `${origin}/wait` } } })).body.nodes[0].nodeId;
    const run = (await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: { entryNodeId: node } })).body;
    await eventually(async () => ((await ledgerRuns(id)).length ? true : undefined), 'the run to begin');
    await sweepRunLedger(harness().orm, harness().env.client, 0);
    expect((await ledgerRuns(id)).map((r) => r.status)).to.deep.equal(['running']); // still running: left alone
    await harness().env.client.workflow.getHandle(run.id).terminate('operator stopped it');

    expect(await sweepRunLedger(harness().orm, harness().env.client, 0)).to.be.at.least(1);
    expect((await ledgerRuns(id)).map((r) => r.status)).to.deep.equal(['failed']);
    const workflow = (await call('GET', `/workflows/${id}`, { key })).body;
    expect([workflow.runsCount, workflow.runsFailedCount]).to.deep.equal([1, 1]);
    await sweepRunLedger(harness().orm, harness().env.client, 0);
    expect((await call('GET', `/workflows/${id}`, { key })).body.runsFailedCount).to.equal(1);
  });
});
