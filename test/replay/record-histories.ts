/**
 * Records the run histories that `replay.test.ts` replays: real runs of real graphs through the API, the outbox and
 * Temporal. Not part of `npm test` (the name has no `.test`): run it when workflow code changes on purpose, with
 *   SPEC=test/replay/record-histories.ts npx mocha
 * and commit the files it writes to test/replay/histories/ next to the change (behind `patched()` when runs in
 * flight must keep their old behaviour).
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { temporal } from '@temporalio/proto';
import { expect } from 'chai';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { awaitRun, eventually, runResult } from '../setup/runs.js';
import { activeChain, newTable } from '../api/active-automations.helpers.js';
import { intent, intentFlow, say, startConversation, talkingAgent } from '../api/agents/conversation.helpers.js';
import { ok } from '../api/agents/agent-calls.helpers.js';

const dir = fileURLToPath(new URL('./histories/', import.meta.url));

/** Writes a history as Temporal's protobuf encoding, base64 in a JSON file with the run's Temporal workflow id. */
async function save(name: string, temporalWorkflowId: string): Promise<void> {
  const history = await harness().env.client.workflow.getHandle(temporalWorkflowId).fetchHistory();
  const encoded = Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('base64');
  writeFileSync(
    `${dir}${name}.json`,
    `${JSON.stringify({ workflowId: temporalWorkflowId, events: history.events?.length, history: encoded }, null, 1)}\n`,
  );
}

async function node(key: string, workflowId: number, body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', `/workflows/${workflowId}/nodes`, { key, body });
  expect(res.status, res.text).to.equal(201);
  return res.body.nodes.at(-1).nodeId;
}

async function edge(key: string, workflowId: number, source: string, handle: string, targetEdge: string): Promise<void> {
  const res = await call('POST', `/workflows/${workflowId}/edges`, { key, body: { source, handle, targetEdge } });
  expect(res.status, res.text).to.equal(201);
}

async function manualRun(key: string, workflowId: number, payload: unknown): Promise<string> {
  const res = await call('POST', `/workflows/${workflowId}/runs?snapshot=draft`, { key, body: { payload } });
  expect(res.status, res.text).to.equal(202);
  return res.body.id;
}

/** A webhook run of WEBHOOK → DYNAMIC_TABLES CREATE → SEARCH, recorded as the history `name`. */
async function recordWebhookRun(key: string, tableId: number, name: string): Promise<void> {
  const hook = (await call('POST', '/incoming-webhooks', { key, body: { name: 'Shop', useAuthentication: false } })).body;
  const live = await activeChain(key, 'On order', [
    { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in', triggerByWebhookIds: [hook.id] } },
    { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData: { Ref: '{trigger_payload.order}' } } },
    { type: 'DYNAMIC_TABLES', data: { action: 'SEARCH', tableId, search: 'A-1' } },
  ]);
  const posted = await call('POST', `/webhooks/${hook.id}`, { baseUrl: harness().origin, body: { order: 'A-1' } });
  const run = `automation:${live.id}:event-${posted.body.eventId}`;
  expect((await awaitRun(run)).successful).to.equal(true);
  await save(name, run);
}

/** A manual run whose one node fails (an UPDATE of a record that does not exist), recorded as the history `name`. */
async function recordFailedRun(key: string, tableId: number, name: string): Promise<void> {
  const failing = (await call('POST', '/workflows', { key, body: { name: 'Fails' } })).body.id as number;
  await node(key, failing, {
    type: 'DYNAMIC_TABLES',
    data: { action: 'UPDATE', tableId, rowId: '0123456789abcdef01234567', rowData: { Ref: 'x' } },
  });
  const run = await manualRun(key, failing, null);
  expect((await runResult(run)).successful).to.equal(false);
  await save(name, run);
}

describe('recording run histories for the replay tests', function () {
  this.timeout(120_000);

  it('records a webhook run, a loop with BREAK, a failed run and a cancelled run', async () => {
    const { userKey: key } = await newAccount();
    const tableId = await newTable(key, 'orders', ['Ref']);
    await recordWebhookRun(key, tableId, 'webhook-run');

    const loopFlow = (await call('POST', '/workflows', { key, body: { name: 'Loop' } })).body.id as number;
    const loop = await node(key, loopFlow, { type: 'ITERATION', alias: 'each', data: { variableName: 'trigger_payload' } });
    const write = await node(key, loopFlow, { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData: { Ref: 'item {each.item}' } } });
    const stop = await node(key, loopFlow, { type: 'BREAK', data: {} });
    const done = await node(key, loopFlow, { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData: { Ref: 'done' } } });
    await edge(key, loopFlow, loop, 'body', write);
    await edge(key, loopFlow, write, 'default', stop);
    await edge(key, loopFlow, loop, 'completed', done);
    const loopRun = await manualRun(key, loopFlow, [1, 2, 3]);
    expect((await runResult(loopRun)).successful).to.equal(true);
    await save('loop-with-break', loopRun);

    await recordFailedRun(key, tableId, 'failed-run');

    let calls = 0;
    const slow = createServer(() => {
      calls += 1; // never answered: the run waits in its API node until it is cancelled
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const waiting = (await call('POST', '/workflows', { key, body: { name: 'Waits' } })).body.id as number;
      await node(key, waiting, { type: 'API', data: { url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow` } });
      const cancelledRun = await manualRun(key, waiting, null);
      await eventually(async () => (calls > 0 ? true : undefined), 'the API node to call');
      expect((await call('POST', `/workflows/${waiting}/logs/${encodeURIComponent(cancelledRun)}/cancel`, { key })).status).to.be.oneOf([200, 202]);
      await eventually(
        async () => ((await harness().env.client.workflow.getHandle(cancelledRun).describe()).status.name === 'CANCELLED' ? true : undefined),
        'the cancellation',
      );
      await save('cancelled-run', cancelledRun);
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });
});

/**
 * A conversation (greeting, an intent flow pausing at RESPONSE_AI, the answer captured by the AI, an AI reply, the end)
 * recorded as the history `name`.
 */
async function recordNewsletterConversation(name: string): Promise<void> {
  const a = await newAccount();
  const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
  await ok('POST', `${agent.base}/variables`, a.userKey, { name: 'email' });
  const newsletter = await intent(a, agent, 'newsletter', ['subscribe me to the newsletter']);
  await intentFlow(
    a,
    agent,
    'Newsletter',
    [newsletter],
    [
      { type: 'SAY_AI', data: { message: 'Your email address?' } },
      { type: 'RESPONSE_AI', data: { captureVariables: [{ name: 'email' }] } },
      { type: 'SAY_AI', data: { message: 'Subscribed {email}.' } },
    ],
  );
  const conversation = await startConversation(a, agent);
  await say(a, agent, conversation.id, 'subscribe me to the newsletter');
  harness().ai.script({ content: JSON.stringify({ email: 'ada@example.test' }) }, { content: 'Anything else?' });
  await say(a, agent, conversation.id, 'ada@example.test');
  await say(a, agent, conversation.id, 'thanks');
  await ok('POST', `${agent.base}/conversations/${conversation.id}/end`, a.generalKey, undefined, 200);
  await harness().env.client.workflow.getHandle(conversation.temporalWorkflowId).result();
  await save(name, conversation.temporalWorkflowId);
}

describe('recording a conversation history for the replay tests', function () {
  this.timeout(120_000);

  it('records a conversation: greeting, an intent flow pausing at RESPONSE_AI, the answer, an AI reply, the end', async () => {
    await recordNewsletterConversation('conversation');
  });
});

describe('recording AI nodes in steps for the replay tests', function () {
  this.timeout(120_000);

  it('records a run of AI nodes in steps: AI_CAPTURE with its repair call, then DATA_TRANSFORMER (the ai-nodes-prepare-finish patch)', async () => {
    const { userKey: key } = await newAccount();
    const workflowId = (await call('POST', '/workflows', { key, body: { name: 'AI steps' } })).body.id as number;
    expect((await call('POST', `/workflows/${workflowId}/variables`, { key, body: { name: 'email' } })).status).to.equal(201);
    const capture = await node(key, workflowId, { type: 'AI_CAPTURE', data: { prompt: '{trigger_payload}', captureVariables: [{ name: 'email' }] } });
    const transform = await node(key, workflowId, { type: 'DATA_TRANSFORMER', data: { prompt: 'Greet {email}' } });
    await edge(key, workflowId, capture, 'default', transform);
    harness().ai.script({ content: 'not JSON' }, { content: '{"email":"a@b.test"}' }, { content: 'Hello a@b.test' });
    const run = await manualRun(key, workflowId, 'Write to a@b.test');
    expect((await runResult(run)).successful).to.equal(true);
    await save('ai-steps-run', run);
  });

  it('records a conversation whose AI nodes run in steps: RESPONSE_AI capturing with the AI, an AI reply', async () => {
    await recordNewsletterConversation('ai-steps-conversation');
  });
});

describe('recording runs whose ledger steps ride on their nodes for the replay tests', function () {
  this.timeout(120_000);

  it('records a webhook run and a failed run with the ledger on their nodes (ledgerOnNodes)', async () => {
    const { userKey: key } = await newAccount();
    const tableId = await newTable(key, 'orders', ['Ref']);
    // The start rides on the CREATE, the end on the SEARCH.
    await recordWebhookRun(key, tableId, 'ledger-on-nodes-run');
    // The node carrying both steps fails: the start and the end are then local activities of their own.
    await recordFailedRun(key, tableId, 'ledger-on-nodes-failed-run');
  });
});

describe('recording a conversation whose deadline timer messages do not restart, for the replay tests', function () {
  this.timeout(120_000);

  it('records the newsletter conversation with the conversation-one-deadline-timer patch', async () => {
    await recordNewsletterConversation('one-timer-conversation');
  });
});

/**
 * A run of DATA_TRANSFORMER (an AI node in steps: the ai-nodes-prepare-finish marker is in the history) then TOOLS_AI
 * calling a table tool, answering and capturing, recorded as the history `name`.
 */
async function recordToolsAiRun(name: string): Promise<void> {
  const { userKey: key } = await newAccount();
  const recordTypeId = (await call('GET', '/objects/people', { key })).body.recordTypes[0].id as number;
  const workflowId = (await call('POST', '/workflows', { key, body: { name: 'Tools' } })).body.id as number;
  expect((await call('POST', `/workflows/${workflowId}/variables`, { key, body: { name: 'email' } })).status).to.equal(201);
  const transform = await node(key, workflowId, { type: 'DATA_TRANSFORMER', data: { prompt: 'Tidy {trigger_payload}' } });
  const tools = await node(key, workflowId, {
    type: 'TOOLS_AI',
    data: { prompt: 'Log {trigger_payload} in People', selectedRecordTypes: [{ id: recordTypeId }], captureVariables: [{ name: 'email' }] },
  });
  await edge(key, workflowId, transform, 'default', tools);
  harness().ai.script(
    { content: 'Ada, ada@example.test' },
    { toolCalls: [{ name: `create_${recordTypeId}_People`, arguments: { values: { 'First name': 'Ada', Email: 'ada@example.test' } } }] },
    { content: 'Ada is logged.' },
    { content: '{"email":"ada@example.test"}' },
  );
  const run = await manualRun(key, workflowId, 'Ada, ada@example.test');
  const result = await runResult(run);
  expect(result.successful, JSON.stringify(result)).to.equal(true);
  await save(name, run);
}

describe('recording a TOOLS_AI run for the replay tests', function () {
  this.timeout(120_000);

  it('records TOOLS_AI executed again after each AI call (before TOOLS_AI had steps)', async () => {
    await recordToolsAiRun('tools-ai-run');
  });

  it('records TOOLS_AI in steps: prepareAiNode, then a finishAiNode per tool round and for the capture', async () => {
    await recordToolsAiRun('tools-ai-steps-run');
  });
});

describe('recording a retried run for the replay tests', function () {
  this.timeout(120_000);

  it('records a failed run whose end reports its failure, and its retry from the failed node (resume)', async () => {
    const { userKey: key } = await newAccount();
    const tableId = await newTable(key, 'orders', ['Ref']);
    let status = 404;
    const api = createServer((_req, res) => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    try {
      const workflowId = (await call('POST', '/workflows', { key, body: { name: 'Retried' } })).body.id as number;
      const create = await node(key, workflowId, { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId, rowData: { Ref: 'kept' } } });
      const check = await node(key, workflowId, { type: 'API', data: { url: `http://127.0.0.1:${(api.address() as AddressInfo).port}/check` } });
      await edge(key, workflowId, create, 'default', check);
      const failed = await manualRun(key, workflowId, null);
      expect((await runResult(failed)).successful).to.equal(false);
      await save('failure-reported-run', failed);
      status = 200;
      const retried = await call('POST', `/workflows/${workflowId}/logs/${encodeURIComponent(failed)}/retry`, { key, body: { from: 'failed-node' } });
      expect(retried.status, retried.text).to.equal(202);
      expect((await awaitRun(retried.body.id)).successful).to.equal(true);
      await save('retried-from-failed-node-run', retried.body.id);
    } finally {
      api.closeAllConnections();
      api.close();
    }
  });
});

describe('recording a retry job for the replay tests', function () {
  this.timeout(120_000);

  it('records a retry job (retryRuns) that retries one failed run', async () => {
    const { userKey: key } = await newAccount();
    const tableId = await newTable(key, 'orders', ['Ref']);
    const workflowId = (await call('POST', '/workflows', { key, body: { name: 'Retried by a job' } })).body.id as number;
    await node(key, workflowId, {
      type: 'DYNAMIC_TABLES',
      data: { action: 'UPDATE', tableId, rowId: '0123456789abcdef01234567', rowData: { Ref: 'x' } },
    });
    const failed = await manualRun(key, workflowId, null);
    expect((await runResult(failed)).successful).to.equal(false);
    const filter = { status: 'failed', from: new Date(Date.now() - 600_000).toISOString(), to: new Date(Date.now() + 600_000).toISOString() };
    await eventually(
      async () =>
        (await call('POST', `/workflows/${workflowId}/retries`, { key, body: { filter, dryRun: true } })).body.count === 1 ? true : undefined,
      'visibility to list the failed run',
    );
    const job = await call('POST', `/workflows/${workflowId}/retries`, { key, body: { filter, from: 'start' } });
    expect(job.status, job.text).to.equal(202);
    await harness().env.client.workflow.getHandle(job.body.temporalWorkflowId).result();
    await save('retry-job', job.body.temporalWorkflowId);
  });

  it('records a retry job of more runs than a batch, which waits for its retries between batches', async () => {
    const { userKey: key } = await newAccount();
    const tableId = await newTable(key, 'orders', ['Ref']);
    const workflowId = (await call('POST', '/workflows', { key, body: { name: 'Retried in batches' } })).body.id as number;
    await node(key, workflowId, {
      type: 'DYNAMIC_TABLES',
      data: { action: 'UPDATE', tableId, rowId: '0123456789abcdef01234567', rowData: { Ref: 'x' } },
    });
    const runs = 12; // a batch is 10 (RETRY_JOB_BATCH)
    for (let i = 0; i < runs; i += 1) expect((await runResult(await manualRun(key, workflowId, i))).successful).to.equal(false);
    const filter = { status: 'failed', from: new Date(Date.now() - 600_000).toISOString(), to: new Date(Date.now() + 600_000).toISOString() };
    await eventually(
      async () =>
        (await call('POST', `/workflows/${workflowId}/retries`, { key, body: { filter, dryRun: true } })).body.count === runs ? true : undefined,
      'visibility to list the failed runs',
    );
    const job = await call('POST', `/workflows/${workflowId}/retries`, { key, body: { filter, from: 'start' } });
    expect(job.status, job.text).to.equal(202);
    expect(await harness().env.client.workflow.getHandle(job.body.temporalWorkflowId).result()).to.deep.equal({ planned: runs, queued: runs });
    await save('retry-job-batches', job.body.temporalWorkflowId);
  });
});

describe('recording scheduled runs for the replay tests', function () {
  this.timeout(120_000);

  /** An ACTIVE workflow SCHEDULED_TRIGGER (daily, twelve hours from now) → DYNAMIC_TABLES writing the payload's time. */
  async function scheduledWorkflow(key: string): Promise<{ workflowId: number; tick: string }> {
    const tableId = await newTable(key, 'ticks', ['At']);
    const workflowId = (await call('POST', '/workflows', { key, body: { name: 'Scheduled' } })).body.id as number;
    const hour = (new Date().getUTCHours() + 12) % 24;
    const tick = await node(key, workflowId, {
      type: 'SCHEDULED_TRIGGER',
      data: { cronExpression: `0 ${hour} * * *`, timezone: 'UTC', startTime: null, endTime: null },
    });
    const write = await node(key, workflowId, {
      type: 'DYNAMIC_TABLES',
      data: { action: 'CREATE', tableId, rowData: { At: '{trigger_payload.scheduledTime}' } },
    });
    await edge(key, workflowId, tick, 'default', write);
    expect((await call('PUT', `/workflows/${workflowId}`, { key, body: { status: 'ACTIVE' } })).status).to.equal(200);
    return { workflowId, tick };
  }

  /** The run the schedule started last. */
  const lastScheduledRun = (workflowId: number, tick: string) =>
    eventually(
      async () =>
        (await harness().env.client.schedule.getHandle(`automation-${workflowId}-${tick}`).describe()).info.recentActions.at(-1)?.action.workflow
          .workflowId,
      'the run the schedule started',
    );

  it('records a run its schedule started (scheduled-run.json predates the scheduled-time-in-payload patch)', async () => {
    const { userKey: key } = await newAccount();
    const { workflowId, tick } = await scheduledWorkflow(key);
    await harness().env.client.schedule.getHandle(`automation-${workflowId}-${tick}`).trigger();
    const run = await lastScheduledRun(workflowId, tick);
    expect((await awaitRun(run)).successful).to.equal(true);
    await save('scheduled-run', run);
  });

  it('records an occurrence a backfill ran, its scheduled time in its payload (the scheduled-time-in-payload patch)', async () => {
    const { userKey: key } = await newAccount();
    const { workflowId, tick } = await scheduledWorkflow(key);
    const window = { from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date().toISOString() };
    const backfill = await call('POST', `/workflows/${workflowId}/schedule/backfill`, { key, body: window });
    expect([backfill.status, backfill.body.count], backfill.text).to.deep.equal([202, 1]);
    const run = await lastScheduledRun(workflowId, tick);
    const result = await awaitRun(run);
    expect(result.nodeResults[0]!.output).to.deep.include({ scheduledTime: backfill.body.scheduledTimes[0] });
    await save('scheduled-time-run', run);
  });
});
