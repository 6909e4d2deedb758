/**
 * Knowledge-base indexing survives a worker crash (real worker processes): the worker indexing a URL document is
 * killed while the document is being downloaded; a new worker resumes the indexing workflow at that step and the
 * document ends INDEXED, found by a query.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { harness } from '../setup/harness.js';
import { call } from '../setup/http.js';
import { eventually } from '../setup/runs.js';
import { indexWorkflowId } from '../../lib/knowledge/indexing-contract.js';
import { killWorker, newRig, startWorker, type Rig, type WorkerProcess } from './processes.js';

const PAGE = '<html><body><h1>Returns</h1><p>Opened items can be returned within 14 days.</p></body></html>';

describe('knowledge indexing survives worker crashes (real worker processes)', function () {
  this.timeout(180_000);
  let rig: Rig;
  let worker: WorkerProcess | undefined;
  let site: Server;
  let hits = 0;
  const stalled: ServerResponse[] = [];

  before(async () => {
    rig = await newRig();
    // The first download never answers (its worker dies holding it); later ones answer the page.
    site = createServer((_req, res) => {
      hits += 1;
      if (hits === 1) return void stalled.push(res);
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const res of stalled) res.destroy();
    site.closeAllConnections();
    site.close();
    await rig.close(worker);
  });

  it('a worker killed mid-indexing: a new worker resumes the workflow and the document is INDEXED', async () => {
    const baseUrl = `${rig.api.origin}/public/v1`;
    const kb = (await call('POST', '/knowledge-bases', { key: rig.key, baseUrl, body: { name: 'Policies' } })).body.id;
    worker = await startWorker(rig.plant);
    const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/returns.html`;
    const posted = await call('POST', `/knowledge-bases/${kb}/documents`, { key: rig.key, baseUrl, body: { url, title: 'Returns' } });
    expect(posted.status, posted.text).to.equal(201);
    await eventually(async () => (hits >= 1 ? true : undefined), 'the indexing activity to download the page', 60_000);
    await killWorker(worker);
    worker = await startWorker(rig.plant);
    const workflowId = indexWorkflowId({ accountId: 0, documentId: posted.body.id, revision: 1 });
    expect(await harness().env.client.workflow.getHandle(workflowId).result()).to.equal('INDEXED');
    expect(hits).to.equal(2); // the download in flight when the worker died, then its retry
    const doc = (await call('GET', `/knowledge-bases/${kb}/documents/${posted.body.id}`, { key: rig.key, baseUrl })).body;
    expect(doc).to.include({ status: 'INDEXED', chunkCount: 1 });
    const found = (await call('POST', `/knowledge-bases/${kb}/query`, { key: rig.key, baseUrl, body: { query: 'return opened items' } })).body
      .agentry;
    expect(found.map((p: { documentId: string }) => p.documentId)).to.deep.equal([posted.body.id]);
  });
});
