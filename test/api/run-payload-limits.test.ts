import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { OutputSummary } from '../../lib/runtime/contract.js';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { awaitRun, runResult } from '../setup/runs.js';
import { activeChain } from './active-automations.helpers.js';

const MB = 1024 * 1024;

/** Answers `/bytes/<n>` with a JSON document of about n bytes, and `/small` with a tiny one. */
function startService(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    const size = /^\/bytes\/(\d+)/.exec(req.url ?? '');
    res.end(size ? JSON.stringify({ blob: 'x'.repeat(Number(size[1])) }) : '{"ok":true}');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

async function historyBytes(temporalWorkflowId: string): Promise<number> {
  const described = await harness().env.client.workflow.getHandle(temporalWorkflowId).describe();
  return Number(described.raw.workflowExecutionInfo?.historySizeBytes ?? 0);
}

const isSummary = (value: unknown): value is OutputSummary =>
  typeof value === 'object' && value !== null && (value as OutputSummary).truncated === true;

describe('run payloads stay within Temporal limits', function () {
  this.timeout(120_000);
  let service: Awaited<ReturnType<typeof startService>>;
  before(async () => {
    service = await startService();
  });
  after(() => service.server.close());

  it('a 1 MB webhook body goes through a 20-node chain without being copied into every node', async () => {
    const { userKey: key } = await newAccount();
    const hook = (await call('POST', '/incoming-webhooks', { key, body: { name: 'Big', useAuthentication: false } })).body;
    const calls = Array.from({ length: 19 }, () => ({ type: 'API', data: { url: `${service.origin}/small` } }));
    const live = await activeChain(key, 'Twenty nodes', [
      { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in', triggerByWebhookIds: [hook.id] } },
      ...calls,
    ]);
    const big = await listen({
      config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 2 * MB, taskQueue: harness().taskQueue, temporalUiUrl: 'http://ui.test' },
    });
    try {
      const res = await call('POST', `/webhooks/${hook.id}`, { baseUrl: big.origin, body: { blob: 'y'.repeat(MB) } });
      expect(res.status, res.text).to.equal(202);
      const runId = `automation:${live.id}:event-${res.body.eventId}`;
      const run = await awaitRun(runId, 60_000);
      expect(run.successful, JSON.stringify(run.error)).to.equal(true);
      expect(run.nodeResults).to.have.length(20);
      const entry = run.nodeResults[0]!.output;
      expect(isSummary(entry) && entry.bytes).to.be.greaterThan(MB);
      // The payload is in the run's input once; no node's activity input carries it again.
      expect(await historyBytes(runId)).to.be.lessThan(1.5 * MB);
    } finally {
      big.server.close();
    }
  });

  it('two nodes returning 1 MB each complete, and the result reports their outputs by size', async () => {
    const { userKey: key } = await newAccount();
    const id = (await call('POST', '/workflows', { key, body: { name: 'Two megabytes' } })).body.id as number;
    const first = (
      await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'API', data: { url: `${service.origin}/bytes/${MB}` } } })
    ).body.nodes.at(-1).nodeId;
    const second = (
      await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'API', data: { url: `${service.origin}/bytes/${MB}` } } })
    ).body.nodes.at(-1).nodeId;
    await call('POST', `/workflows/${id}/edges`, { key, body: { source: first, handle: 'default', targetEdge: second } });
    const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: { entryNodeId: first } });
    const run = await runResult(started.body.id);
    expect(run.successful, JSON.stringify(run.error)).to.equal(true);
    for (const result of run.nodeResults) expect(isSummary(result.output) && result.output.bytes).to.be.greaterThan(MB);
    const detail = await call('GET', `/workflows/${id}/logs/${encodeURIComponent(started.body.id)}`, { key });
    expect(detail.status).to.equal(200);
    expect(detail.body.node_results.map((r: { success: boolean }) => r.success)).to.deep.equal([true, true]);
  });

  it('an ITERATION of 50 items each returning 500 kB completes; one that would pass the history limit stops with a message naming the node', async () => {
    const { userKey: key } = await newAccount();
    const loopOver = async (itemBytes: number) => {
      const id = (await call('POST', '/workflows', { key, body: { name: `Loop of ${itemBytes}` } })).body.id as number;
      const loop = (
        await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'ITERATION', alias: 'each', data: { variableName: 'trigger_payload' } } })
      ).body.nodes.at(-1).nodeId;
      const fetch = (
        await call('POST', `/workflows/${id}/nodes`, {
          key,
          body: { type: 'API', alias: 'fetch', data: { url: `${service.origin}/bytes/${itemBytes}?item={each.index}` } },
        })
      ).body.nodes.at(-1).nodeId;
      await call('POST', `/workflows/${id}/edges`, { key, body: { source: loop, handle: 'body', targetEdge: fetch } });
      const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: { payload: Array.from({ length: 50 }, (_, i) => i) } });
      return runResult(started.body.id);
    };
    const fits = await loopOver(500 * 1024);
    expect(fits.successful, JSON.stringify(fits.error)).to.equal(true);
    expect(fits.nodeResults).to.have.length(51);

    const tooMuch = await loopOver(1.4 * MB);
    expect(tooMuch.successful).to.equal(false);
    expect(tooMuch.error!.message).to.match(/history has grown to .* MB .*node fetch was not executed: make node outputs smaller/);
    expect(tooMuch.nodeResults.filter((r) => r.type === 'API').length).to.be.within(25, 49);
  });
});
