import { expect } from 'chai';
import { DefaultLogger } from '@temporalio/worker';
import { MockActivityEnvironment, defaultActivityInfo } from '@temporalio/testing';
import { createAiCallActivities } from '../../activities/ai-call.activity.js';
import type { AiCallRequest, AiReply } from '../../lib/runtime/ai-call.js';
import { createOutboundFetch } from '../../integrations/outbound/outbound-fetch.js';
import { recordedActivities } from '../setup/activity-history.js';
import { harness, TEST_OUTBOUND_POLICY } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { waitUntil } from '../setup/runs.js';
import { executeNodeAttempt } from '../setup/node-executions.js';
import { draftWorkflow } from './nodes/node-runs.helpers.js';
import { dataTransformerNode } from '../../nodes/data-transformer.node.js';
import type { AiNodeSteps } from '../../nodes/node-module.js';

// The default TEXT model of the catalog: GPT-4o, 5 credits a message.
const CREDITS = 5;

async function accountWithBalance(balance: number) {
  const a = await newAccount();
  await harness().orm.em.getConnection().execute('update accounts set credit_balance = ? where id = ?', [balance, a.account.id]);
  return a;
}

async function balanceOf(accountId: number): Promise<number> {
  const rows = await harness().orm.em.getConnection().execute('select credit_balance from accounts where id = ?', [accountId]);
  return Number(rows[0].credit_balance);
}

describe('AI calls as activities of their own', function () {
  this.timeout(60_000);
  const ai = () => harness().ai;

  it('shows every AI call as an aiCall activity in the run history, with its request and its model, tokens, latency and credits', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key, ['email']);
    const capture = await wf.node('AI_CAPTURE', { prompt: 'p', captureVariables: [{ name: 'email' }] });
    const transform = await wf.node('DATA_TRANSFORMER', { prompt: 'Greet {email}' });
    await wf.edge(capture, 'default', transform);
    ai().script(
      { content: 'not JSON', usage: { prompt_tokens: 30, completion_tokens: 3 } },
      { content: '{"email":"a@b.test"}', usage: { prompt_tokens: 40, completion_tokens: 4 } },
      { content: 'Hello a@b.test', usage: { prompt_tokens: 50, completion_tokens: 5 } },
    );
    const run = await wf.run(capture);
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.nodeResults.map((r) => r.aiCredits)).to.deep.equal([2 * CREDITS, CREDITS]);

    const activities = await recordedActivities(run.logId, ['executeNode', 'prepareAiNode', 'aiCall', 'finishAiNode']);
    // Each node prepares its call and finishes with the reply; AI_CAPTURE's invalid answer has its repair call and finishes again.
    expect(activities.map((a) => a.type)).to.deep.equal([
      'prepareAiNode',
      'aiCall',
      'finishAiNode',
      'aiCall',
      'finishAiNode',
      'prepareAiNode',
      'aiCall',
      'finishAiNode',
    ]);
    const calls = activities.filter((a) => a.type === 'aiCall');
    const requests = calls.map((c) => c.input as AiCallRequest);
    expect(requests.map((r) => r.callKey.replace(/^.*#/, '#'))).to.deep.equal(['#1/ai-1', '#1/ai-2', '#2/ai-1']);
    expect(requests[0]).to.deep.include({ model: { externalId: 'gpt-4o', name: 'GPT-4o', creditsPerMessage: CREDITS } });
    expect(requests[2].call).to.deep.include({ kind: 'chat' });
    const replies = calls.map((c) => c.result as AiReply);
    expect(replies.map((r) => r.content)).to.deep.equal(['not JSON', '{"email":"a@b.test"}', 'Hello a@b.test']);
    for (const [i, reply] of replies.entries()) {
      expect(reply.record).to.include({ model: 'gpt-4o', promptTokens: 30 + 10 * i, completionTokens: 3 + i, credits: CREDITS });
      expect(reply.record.latencyMs).to.be.a('number').and.at.least(0);
    }
    // The node finished with the reply (a local activity, whose marker records its result): its output is the reply.
    expect(activities.at(-1)).to.deep.include({ local: true });
    expect((activities.at(-1)!.result as { output: unknown }).output).to.equal('Hello a@b.test');
  });

  it("runs a single-call AI node's code once: prepareAiNode, its aiCall, finishAiNode, and never the whole node again", async () => {
    const a = await accountWithBalance(100);
    const wf = await draftWorkflow(a.userKey);
    const transform = await wf.node('DATA_TRANSFORMER', { prompt: 'Shout hi' });
    // Every run of the node's code, counted in the worker (it runs in this process).
    const steps = dataTransformerNode.ai as AiNodeSteps;
    const { prepare, finish } = steps;
    const ran: string[] = [];
    steps.prepare = (...args) => (ran.push('prepare'), prepare(...args));
    steps.finish = (...args) => (ran.push('finish'), finish(...args));
    try {
      ai().script({ content: 'HI' });
      const run = await wf.run(transform);
      expect(run.successful, JSON.stringify(run)).to.equal(true);
      expect(run.nodeResults.map((r) => [r.output, r.aiCredits])).to.deep.equal([['HI', CREDITS]]);
      expect(ran).to.deep.equal(['prepare', 'finish']);
      // The history has one execution of each step, at its first attempt: the node was never executed again
      // (before steps it was: executeNode, aiCall, executeNode).
      const activities = await recordedActivities(run.logId, ['executeNode', 'prepareAiNode', 'aiCall', 'finishAiNode']);
      expect(activities.map((x) => [x.type, x.attempts])).to.deep.equal([
        ['prepareAiNode', 1],
        ['aiCall', 1],
        ['finishAiNode', 1],
      ]);
      expect((activities[0].result as { aiCall: AiCallRequest }).aiCall.callKey).to.match(/#1\/ai-1$/);
      // The new command sequence is behind its patch: the run recorded the patch marker.
      const history = await harness().env.client.workflow.getHandle(run.logId).fetchHistory();
      const markers = (history.events ?? []).map((e) => e.markerRecordedEventAttributes?.markerName).filter(Boolean);
      expect(markers).to.include('core_patch');
      expect(await balanceOf(a.account.id)).to.equal(100 - CREDITS);
    } finally {
      Object.assign(steps, { prepare, finish });
    }
  });

  it('retries a 429 no earlier than its Retry-After, charging the call once; a 400 is not retried and its credits go back', async () => {
    const a = await accountWithBalance(100);
    const wf = await draftWorkflow(a.userKey);
    const transform = await wf.node('DATA_TRANSFORMER', { prompt: 'p' });

    ai().script({ status: 429, headers: { 'retry-after': '2' } }, { content: 'done' });
    const retried = await wf.run(transform);
    expect(retried.successful, JSON.stringify(retried)).to.equal(true);
    const [first, second] = ai().chats;
    expect(second.at - first.at).to.be.at.least(2_000);
    const call = (await recordedActivities(retried.logId)).find((x) => x.type === 'aiCall')!;
    expect(call.attempts).to.equal(2);
    expect(await balanceOf(a.account.id)).to.equal(100 - CREDITS);

    ai().script({ status: 400, body: JSON.stringify({ error: { message: 'bad request' } }) }, { content: 'never asked' });
    const refused = await wf.run(transform);
    expect(refused.successful).to.equal(false);
    expect(refused.error!.message).to.equal('The AI provider refused the request (400): bad request');
    const failed = (await recordedActivities(refused.logId)).filter((x) => x.type === 'aiCall');
    expect(failed).to.have.length(1);
    expect(failed[0]).to.deep.include({ attempts: 1, failure: 'The AI provider refused the request (400): bad request' });
    expect(ai().chats).to.have.length(1);
    expect(await balanceOf(a.account.id)).to.equal(100 - CREDITS);
    expect(refused.aiCredits).to.equal(0);
  });

  it('charges a call once when Temporal retries its activity after a 500', async () => {
    const a = await accountWithBalance(100);
    const wf = await draftWorkflow(a.userKey);
    const transform = await wf.node('DATA_TRANSFORMER', { prompt: 'p' });
    ai().script({ status: 500 }, { content: 'second time lucky' });
    const run = await wf.run(transform);
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.nodeResults[0]).to.deep.include({ output: 'second time lucky', aiCredits: CREDITS });
    expect(ai().chats).to.have.length(2);
    expect((await recordedActivities(run.logId)).find((x) => x.type === 'aiCall')!.attempts).to.equal(2);
    expect(await balanceOf(a.account.id)).to.equal(100 - CREDITS);
  });

  it('charges once per call key however often an attempt runs, and refunds once', async () => {
    const a = await accountWithBalance(100);
    const { aiCall, refundAiCall } = createAiCallActivities({
      orm: harness().orm,
      provider: harness().aiProvider,
      httpTimeoutMs: 5_000,
      outbound: createOutboundFetch(TEST_OUTBOUND_POLICY),
    });
    const request: AiCallRequest = {
      accountId: a.account.id,
      callKey: `charge-once-${a.account.id}#1/ai-1`,
      model: { externalId: 'gpt-4o', name: 'GPT-4o', creditsPerMessage: CREDITS },
      call: { kind: 'chat', messages: [{ role: 'user', content: 'hi' }] },
    };
    const attempt = async (n: number) =>
      (await new MockActivityEnvironment({ ...defaultActivityInfo, attempt: n }, { logger: new DefaultLogger('ERROR') }).run(
        aiCall,
        request,
      )) as AiReply;
    ai().script({ content: 'first' }, { content: 'second' });
    // A completed attempt whose completion was lost is attempted again: the provider is asked again, the account is not charged again.
    expect((await attempt(1)).content).to.equal('first');
    expect((await attempt(2)).content).to.equal('second');
    expect(await balanceOf(a.account.id)).to.equal(100 - CREDITS);
    await refundAiCall(request);
    await refundAiCall(request);
    expect(await balanceOf(a.account.id)).to.equal(100);
  });

  it('runs an AI node in steps from its journal of AI replies, as executeNode does for runs started before steps, without calling the provider or charging, however often it is retried', async () => {
    const a = await accountWithBalance(100);
    const execution = {
      accountId: a.account.id,
      type: 'DATA_TRANSFORMER',
      data: { prompt: 'Shout hello' },
      executionKey: `journal-${a.account.id}#3`,
    };
    ai().script();
    const asked = await executeNodeAttempt(execution);
    expect(asked.output).to.equal(undefined);
    expect(asked.aiCall).to.deep.include({ accountId: a.account.id, callKey: `journal-${a.account.id}#3/ai-1` });
    expect((asked.aiCall!.call as { messages: { content: string }[] }).messages[1].content).to.equal('Shout hello');

    const reply: AiReply = {
      kind: 'chat',
      content: 'HELLO',
      toolCalls: [],
      record: { model: 'gpt-4o', promptTokens: 1, completionTokens: 1, latencyMs: 1, credits: CREDITS },
    };
    for (const attempt of [1, 2]) {
      const answered = await executeNodeAttempt({ ...execution, aiReplies: [reply] }, attempt);
      expect(answered).to.deep.equal({ output: 'HELLO', aiCredits: CREDITS });
    }
    expect(ai().requests).to.have.length(0);
    expect(await balanceOf(a.account.id)).to.equal(100);
  });

  it('lists an AI node in flight once in a running run log, as cancelled when the run is cancelled during its AI call, refunding the call', async () => {
    const a = await accountWithBalance(100);
    const wf = await draftWorkflow(a.userKey);
    const first = await wf.node('DATA_TRANSFORMER', { prompt: 'one' });
    const second = await wf.node('DATA_TRANSFORMER', { prompt: 'two' });
    await wf.edge(first, 'default', second);
    ai().script({ content: 'one' }, { content: 'too late', delayMs: 2_900 });
    const started = await call('POST', `/workflows/${wf.id}/runs?snapshot=draft`, { key: a.userKey, body: { entryNodeId: first } });
    const path = `/workflows/${wf.id}/logs/${started.body.id}`;
    await waitUntil(
      async () => ai().chats.length,
      (n) => n === 2,
      'the second AI call',
    );
    const live = await call('GET', path, { key: a.userKey });
    expect(live.body.node_results.map((r: any) => [r.node_id, r.success, r.output, r.ai_credits])).to.deep.equal([[first, true, 'one', CREDITS]]);

    expect((await call('POST', `${path}/cancel`, { key: a.userKey })).status).to.equal(202);
    const cancelled = await waitUntil(
      () => call('GET', path, { key: a.userKey }),
      (res) => res.body.status === 'cancelled',
      'the run cancelled',
    );
    expect(cancelled.body.node_results.map((r: any) => [r.node_id, r.success, r.error])).to.deep.equal([
      [first, true, null],
      [second, false, 'Cancelled'],
    ]);
    await waitUntil(
      () => balanceOf(a.account.id),
      (balance) => balance === 100 - CREDITS,
      'the cancelled call refunded',
    );
  });
});
