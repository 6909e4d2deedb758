/**
 * Conversations through a PostgreSQL restart (real processes): a PostgreSQL server of the test's own is crashed
 * (`pg_ctl stop -m immediate`) in the middle of a turn, with the next turn queued behind it, and again while a
 * conversation's idle and expiry timers fire; it is down PG_TURN_DOWN_MS each time (8 s by default; more than 160 s
 * fails these steps when they are retried only 4 or 5 times). Both turns complete, every message is in the transcript
 * once, and the conversation's counters, idle event and end are recorded once.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { turnsTaskQueue } from '../../lib/runtime/conversation-contract.js';
import { harness } from '../setup/harness.js';
import { call } from '../setup/http.js';
import { startPrivatePostgres, type PrivatePostgres } from '../setup/private-postgres.js';
import { eventually } from '../setup/runs.js';
import { newRig, startWorker, type Rig, type WorkerProcess } from './processes.js';

const DOWN_MS = Number(process.env.PG_TURN_DOWN_MS ?? 8_000);

/** A service whose first call is held until `release()`; later calls answer at once. */
async function gateService() {
  let held: ServerResponse | undefined;
  let hits = 0;
  const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"shipped"}');
  const server = createServer((_req, res) => {
    hits += 1;
    if (hits === 1) held = res;
    else answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    release: () => {
      if (held && !held.headersSent) answer(held);
    },
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Updates (turns, the end) the conversation's workflow has accepted so far. */
async function acceptedUpdates(workflowId: string): Promise<number> {
  const history = await harness().env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length;
}

describe('conversations through a PostgreSQL restart (a PostgreSQL server of its own, a real worker process)', function () {
  this.timeout(120_000 + 2 * DOWN_MS);
  let pg: PrivatePostgres | undefined;
  let rig: Rig | undefined;
  let worker: WorkerProcess | undefined;
  let gate: Awaited<ReturnType<typeof gateService>> | undefined;
  let base: string;

  const v1 = (method: string, path: string, body?: unknown) => call(method, path, { key: rig!.key, baseUrl: `${rig!.api.origin}/public/v1`, body });
  async function ok(method: string, path: string, body?: unknown) {
    const res = await v1(method, path, body);
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.within(200, 201);
    return res.body;
  }
  async function chain(flowId: number, nodes: object[], after?: string) {
    let previous = after;
    for (const node of nodes) {
      const nodeId = (await ok('POST', `${base}/flows/${flowId}/nodes`, node)).nodes.at(-1).nodeId;
      if (previous) await ok('POST', `${base}/flows/${flowId}/edges`, { source: previous, handle: 'default', targetEdge: nodeId });
      previous = nodeId;
    }
    await ok('POST', `${base}/flows/${flowId}/publish`);
  }
  const transcript = async (id: string) =>
    (await ok('GET', `${base}/conversations/${id}`)).messages.map((m: { author: string; text: string }) => `${m.author}: ${m.text}`);
  /** Crashes the server, runs `meanwhile`, and starts it again DOWN_MS after the crash. */
  async function outage(meanwhile: () => unknown = () => undefined) {
    await pg!.stop({ mode: 'immediate' });
    const downAt = Date.now();
    meanwhile();
    await pause(Math.max(0, downAt + DOWN_MS - Date.now()));
    await pg!.start();
  }

  before(async () => {
    pg = await startPrivatePostgres();
    rig = await newRig(undefined, pg.url);
    gate = await gateService();
    const agent = await ok('POST', '/agents', { name: 'Patient' });
    base = `/agents/${agent.id}`;
    await chain(agent.defaultFlowId, [{ type: 'SAY_AI', data: { message: 'Hello!' } }], 'start_1');
    const orders = await ok('POST', `${base}/intents`, { name: 'orders', trainingPhrases: ['where is my order'] });
    const flow = await ok('POST', `${base}/flows`, { name: 'Orders' });
    await chain(flow.id, [
      { type: 'TRIGGER_INTENT', data: { intentIds: [orders.id] } },
      { type: 'SAY_AI', data: { message: 'Let me check.' } },
      { type: 'API', data: { url: `${gate.origin}/orders/7` } },
    ]);
    await ok('PUT', `${base}/deployment-status`, { isOffline: false });
    worker = await startWorker(rig.plant);
  });
  after(async () => {
    await pg?.start(); // a test that failed during the outage leaves the server down
    gate?.release();
    gate?.server.close();
    await rig?.close(worker);
    await pg?.destroy();
  });

  it('turns in flight when the database crashes complete once it is back: each message in the transcript once', async () => {
    const conversation = await ok('POST', `${base}/conversations`, {});
    const send = (text: string) => v1('POST', `${base}/conversations/${conversation.id}/messages`, { text });
    const first = send('Where is my order?');
    await eventually(async () => (gate!.hits() >= 1 ? true : undefined), 'the API node to call the service', 30_000);
    // A second message waits for the first turn, which ends without the database once the service answers: the
    // second turn begins (the user's message into the transcript) while the database is down.
    const second = send('where is my order');
    await eventually(async () => ((await acceptedUpdates(conversation.temporalWorkflowId)) >= 3 ? true : undefined), 'the second turn to queue');
    await outage(() => gate!.release());
    for (const turn of [await first, await second]) {
      expect(turn.status, turn.text).to.equal(200);
      expect(turn.body.error, JSON.stringify(turn.body.error)).to.equal(undefined);
      expect(turn.body.messages.map((m: { text: string }) => m.text)).to.deep.equal(['Let me check.']);
    }
    expect(await transcript(conversation.id)).to.deep.equal([
      'agent: Hello!',
      'user: Where is my order?',
      'agent: Let me check.',
      'user: where is my order',
      'agent: Let me check.',
    ]);
    const view = await ok('GET', `${base}/conversations/${conversation.id}`);
    expect({ status: view.status, turns: view.turns, messageCount: view.messageCount }).to.deep.equal({
      status: 'ACTIVE',
      turns: 2,
      messageCount: 5,
    });
    expect((await ok('POST', `${base}/conversations/${conversation.id}/end`)).status).to.equal('ENDED');
    expect(worker!.child.exitCode, `the worker process exited:\n${worker!.output.join('')}`).to.equal(null);
  });

  it('idle and expiry that fire while the database is down are recorded once it is back, once each', async () => {
    const conversation = await ok('POST', `${base}/conversations`, {});
    // The same conversation with test-sized timers: idle after 2 s, expired after 4 s, both within the outage.
    const handle = harness().env.client.workflow.getHandle(conversation.temporalWorkflowId);
    await handle.terminate('restarted with test settings');
    const accountId = (await rig!.plant.orm.em.getKnex().raw(`select account_id from conversations where id = ?`, [conversation.id])).rows[0]
      .account_id;
    const input = { accountId, agentId: base.split('/')[2], conversationId: conversation.id, channel: 'livechat' };
    await pg!.stop({ mode: 'immediate' });
    await harness().env.client.workflow.start('conversation', {
      taskQueue: turnsTaskQueue(rig!.plant.taskQueue),
      workflowId: conversation.temporalWorkflowId,
      args: [
        { ...input, idleMinutes: 2 / 60, expireMinutes: 4 / 60, state: { turns: 0, variables: {}, waiting: null, ended: false, idleFired: false } },
      ],
    });
    await pause(DOWN_MS);
    await pg!.start();
    const ended = await handle.result();
    expect({ ended: ended.ended, idleFired: ended.idleFired }).to.deep.equal({ ended: true, idleFired: true });
    const view = await ok('GET', `${base}/conversations/${conversation.id}`);
    expect({ status: view.status, endReason: view.endReason, turns: view.turns }).to.deep.equal({ status: 'ENDED', endReason: 'EXPIRED', turns: 0 });
    expect(view.messages.map((m: { text: string }) => m.text)).to.deep.equal(['Hello!']);
    const events = await rig!.plant.orm.em
      .getKnex()
      .raw(`select type, count(*)::int as n from outbox_events where payload->>'conversationId' = ? group by type order by type`, [conversation.id]);
    expect(events.rows).to.deep.equal([
      { type: 'CONVERSATION_ENDED', n: 1 },
      { type: 'CONVERSATION_IDLE', n: 1 },
    ]);
  });
});
