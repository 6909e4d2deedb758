import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { defaultPayloadConverter } from '@temporalio/common';
import { executeNodeAttempt } from '../setup/node-executions.js';
import { harness } from '../setup/harness.js';
import { runResult as result } from '../setup/runs.js';
import { call, newAccount } from '../setup/http.js';

/** A local HTTP service for API nodes: /customer/<id> answers JSON, /missing 404, /flaky 503 twice then 200. */
function startService(): Promise<{ server: Server; origin: string; hits: string[] }> {
  const hits: string[] = [];
  let flaky = 0;
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url?.startsWith('/customer/')) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ customer: { name: `Customer ${req.url.split('/')[2]}`, tier: 'gold' } }));
    } else if (req.url === '/huge') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ rows: Array.from({ length: 20_000 }, (_, i) => ({ id: i, text: 'x'.repeat(100) })) }));
    } else if (req.url === '/flaky' && ++flaky <= 2) {
      res.statusCode = 503;
      res.end('busy');
    } else if (req.url === '/flaky') {
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    } else {
      res.statusCode = 404;
      res.end('no such thing');
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits })),
  );
}

describe('manual workflow runs on Temporal', function () {
  this.timeout(60_000);
  let service: Awaited<ReturnType<typeof startService>>;
  before(async () => {
    service = await startService();
  });
  after(() => service.server.close());

  async function node(key: string, id: number, body: Record<string, unknown>): Promise<string> {
    const res = await call('POST', `/workflows/${id}/nodes`, { key, body });
    expect(res.status, res.text).to.equal(201);
    return res.body.nodes.at(-1).nodeId;
  }

  it('runs the live graph: webhook payload → real HTTP call → a record created from its answer', async () => {
    const a = await newAccount();
    const key = a.userKey;
    await call('POST', '/tables', {
      key,
      body: {
        name: 'vip',
        columns: [
          { name: 'Name', type: 'string' },
          { name: 'Source', type: 'string' },
        ],
      },
    });
    const table = (await call('GET', '/tables/vip', { key })).body;
    const id = (await call('POST', '/workflows', { key, body: { name: 'Enrich' } })).body.id;
    const entry = await node(key, id, { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } });
    const api = await node(key, id, { type: 'API', data: { url: `${service.origin}/customer/{trigger_payload}`, method: 'GET' } });
    const create = await node(key, id, {
      type: 'DYNAMIC_TABLES',
      data: { action: 'CREATE', tableId: table.id, rowData: { Name: 'from {trigger_payload}', Source: `{${api}}` } },
    });
    await call('POST', `/workflows/${id}/edges`, { key, body: { source: entry, handle: 'default', targetEdge: api } });
    await call('POST', `/workflows/${id}/edges`, { key, body: { source: api, handle: 'default', targetEdge: create } });

    const unpublished = await call('POST', `/workflows/${id}/runs`, { key, body: { payload: 42 } });
    expect(unpublished.status).to.equal(400);
    await call('POST', `/workflows/${id}/publish`, { key });
    const started = await call('POST', `/workflows/${id}/runs`, { key, body: { payload: 42 } });
    expect(started.status, started.text).to.equal(202);
    expect(started.body.id).to.match(new RegExp(`^automation:${id}:`));

    const run = await result(started.body.id);
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.nodeResults.map((r) => r.type)).to.deep.equal(['WEBHOOK', 'API', 'DYNAMIC_TABLES']);
    expect(service.hits).to.include('GET /customer/42');
    const rows = await call('POST', '/tables/vip/rows/list', { key, body: {} });
    expect(rows.body.agentry).to.have.length(1);
    expect(rows.body.agentry[0].data.Name).to.equal('from 42');
    expect(JSON.parse(rows.body.agentry[0].data.Source)).to.deep.equal({ customer: { name: 'Customer 42', tier: 'gold' } });

    // The run is a Temporal execution with one local activity per node, named by its summary; the entry node's
    // output is the payload, produced by the workflow itself, and the run's ledger steps ride on its first and last
    // node: the whole run is one workflow task with a local activity per node.
    const history = await harness().env.client.workflow.getHandle(started.body.id).fetchHistory();
    expect(history.events!.filter((e) => e.activityTaskScheduledEventAttributes)).to.have.length(0);
    expect(history.events!.filter((e) => e.workflowTaskCompletedEventAttributes)).to.have.length(1);
    const markers = history.events!.filter((e) => e.markerRecordedEventAttributes);
    expect(markers.map((e) => e.markerRecordedEventAttributes!.markerName)).to.deep.equal(['core_local_activity', 'core_local_activity']);
    const summaries = markers.map((e) => e.userMetadata?.summary && defaultPayloadConverter.fromPayload(e.userMetadata.summary));
    expect(summaries.filter(Boolean)).to.deep.equal([`API ${api} (api)`, `DYNAMIC_TABLES ${create} (dynamic_tables)`]);
    const ledger = await harness().orm.em.getKnex().raw(`select status, operations from workflow_runs where id = ?`, [started.body.id]);
    expect(ledger.rows).to.deep.equal([{ status: 'successful', operations: 3 }]);
  });

  it('records the start and end of runs whose first and last nodes carry them, also when that node fails or credits are out', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const ledger = async (runId: string) =>
      (await harness().orm.em.getKnex().raw(`select status, operations, insufficient_credits, error from workflow_runs where id = ?`, [runId])).rows;
    const id = (await call('POST', '/workflows', { key, body: { name: 'Carried' } })).body.id;
    const first = await node(key, id, { type: 'API', data: { url: `${service.origin}/customer/{trigger_payload}`, method: 'GET' } });
    const last = await node(key, id, { type: 'API', data: { url: `${service.origin}/{trigger_payload}`, method: 'GET' } });
    await call('POST', `/workflows/${id}/edges`, { key, body: { source: first, handle: 'default', targetEdge: last } });
    await call('POST', `/workflows/${id}/publish`, { key });
    const run = async (payload: string) => {
      const started = await call('POST', `/workflows/${id}/runs`, { key, body: { payload } });
      expect(started.status, started.text).to.equal(202);
      return { id: started.body.id as string, result: await result(started.body.id) };
    };

    // The last node fails (404): the end it carried is not recorded by it, the run records its failure itself.
    const failed = await run('absent');
    expect(failed.result.successful).to.equal(false);
    expect(await ledger(failed.id)).to.deep.equal([
      { status: 'failed', operations: 2, insufficient_credits: false, error: failed.result.error!.message },
    ]);

    // An account without credits: the first node's start finds none, and the node does not run.
    await harness().orm.em.getKnex().raw('update accounts set credit_balance = 0 where id = ?', [a.account.id]);
    const hits = service.hits.length;
    const broke = await run('7');
    expect(broke.result).to.include({ successful: false, insufficientCredits: true, steps: 0 });
    expect(broke.result.nodeResults).to.deep.equal([]);
    expect(service.hits.length).to.equal(hits);
    expect(await ledger(broke.id)).to.deep.equal([
      { status: 'failed', operations: 0, insufficient_credits: true, error: broke.result.error!.message },
    ]);
  });

  it('retries 5xx answers with backoff, fails at once on 4xx, and records the failing node', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const id = (await call('POST', '/workflows', { key, body: { name: 'Calls' } })).body.id;
    const flaky = await node(key, id, { type: 'API', data: { url: `${service.origin}/flaky` } });
    const missing = await node(key, id, { type: 'API', data: { url: `${service.origin}/missing` } });
    await call('POST', `/workflows/${id}/edges`, { key, body: { source: flaky, handle: 'default', targetEdge: missing } });

    const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: { entryNodeId: flaky } });
    const run = await result(started.body.id);
    expect(run.successful).to.equal(false);
    expect(run.error!.nodeId).to.equal(missing);
    expect(run.error!.message).to.match(/answered 404/);
    expect(run.nodeResults.map((r) => r.success)).to.deep.equal([true, false]);
    expect(service.hits.filter((h) => h === 'GET /flaky')).to.have.length(3);
    expect(service.hits.filter((h) => h === 'GET /missing')).to.have.length(1);
  });

  it('fails a flow node executed outside a conversation with a clear message, and hides other accounts', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const id = (await call('POST', '/workflows', { key, body: { name: 'AI' } })).body.id;
    // SAY_AI runs in conversation turns only: executed for a workflow it fails at once, saying so.
    const attempt = executeNodeAttempt({ accountId: a.account.id, type: 'SAY_AI', data: { message: 'hi' }, executionKey: 'say-ai-1' });
    expect(
      await attempt.then(
        () => '',
        (e: Error) => e.message,
      ),
    ).to.equal('SAY_AI runs only in a conversation of an agent');
    const other = await newAccount();
    expect((await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key: other.userKey, body: {} })).status).to.equal(404);
  });

  it('fails a node whose output is too large for Temporal with a message saying so, without retrying', async () => {
    const a = await newAccount();
    const key = a.userKey;
    const id = (await call('POST', '/workflows', { key, body: { name: 'Greedy' } })).body.id;
    const huge = await node(key, id, { type: 'API', alias: 'everything', data: { url: `${service.origin}/huge` } });
    const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: { entryNodeId: huge } });
    const run = await result(started.body.id);
    expect(run.successful).to.equal(false);
    expect(run.error!.message).to.match(
      new RegExp(`^The output of API node ${huge} \\(everything\\) is 2\\.\\d MB; a node output may be at most 1\\.5 MB`),
    );
    expect(service.hits.filter((h) => h === 'GET /huge')).to.have.length(1);
  });
});
