/**
 * Conversations end to end through the HTTP API, on the real worker and Temporal: agents greet, intents enter flows
 * that call APIs and log record activities, RESPONSE_AI captures across turns, the default reply, transcripts,
 * analytics, the stream, and the conversation triggers of automations.
 */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { openRuns, quiet, undispatchedEvents } from '../../setup/quiet.js';
import { awaitRun, eventually, ledgerRuns } from '../../setup/runs.js';
import { activeChain, newTable, rowsOf } from '../active-automations.helpers.js';
import { ok, refused, type Account } from './agent-calls.helpers.js';
import {
  chain,
  intent,
  intentFlow,
  orderLookup,
  publish,
  restartConversation,
  say,
  startConversation,
  talkingAgent,
  texts,
} from './conversation.helpers.js';

const ai = () => harness().ai;

describe('conversations', function () {
  this.timeout(60_000);
  let a: Account;
  let orders: Awaited<ReturnType<typeof orderLookup>>;
  before(async () => {
    a = await newAccount();
    orders = await orderLookup();
  });
  after(() => {
    orders.server.closeAllConnections();
    orders.server.close();
  });

  it('an offline agent refuses new conversations (409); online, the default flow greets at the start', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hi, I am {agent_name}. How can I help?' } }]);
    await ok('PUT', `${agent.base}/deployment-status`, a.userKey, { isOffline: true }, 200);
    expect((await refused('POST', `${agent.base}/conversations`, a.generalKey, 409, {})).message).to.match(/offline/);
    await ok('PUT', `${agent.base}/deployment-status`, a.userKey, { isOffline: false }, 200);

    const started = await startConversation(a, agent);
    const name = (await ok('GET', agent.base, a.generalKey)).name;
    expect(started).to.include({ status: 'ACTIVE', channel: 'livechat', assistantId: agent.id });
    expect(texts(started)).to.deep.equal([`Hi, I am ${name}. How can I help?`]);
    expect(started.messages[0]).to.include({ author: 'agent', turn: 0, flowId: agent.defaultFlowId, nodeId: 'say_ai_1' });
    // The conversation is one Temporal workflow on the turns queue; operators find it by this id.
    expect(started.temporalWorkflowId).to.equal(`conversation:${started.id}`);
    const description = await harness().env.client.workflow.getHandle(started.temporalWorkflowId).describe();
    expect(description.status.name).to.equal('RUNNING');
    expect(description.taskQueue).to.equal(`${harness().taskQueue}-turns`);
    // A channel the agent has not turned on refuses conversations.
    expect((await refused('POST', `${agent.base}/conversations`, a.generalKey, 409, { channel: 'instagram' })).message).to.match(/turned off/);
  });

  it('a message matching an intent enters its flow: an API call, a record activity and an answer built from the captured value', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    await ok('POST', `${agent.base}/variables`, a.userKey, { name: 'order_status' });
    const person = (await call('POST', '/objects/people/rows', { key: a.userKey, body: { 'First name': 'Ada' } })).body.id as string;
    const people = (await call('GET', '/objects/people', { key: a.userKey })).body;
    const recordTypeId = people.recordTypes.find((r: { isDefault: boolean }) => r.isDefault).id;
    const orderStatus = await intent(a, agent, 'order status', ['where is my order', 'track my order', 'has my package shipped']);
    await intent(a, agent, 'opening hours', ['when are you open', 'what are your opening hours']);
    const { flowId, nodeIds } = await intentFlow(
      a,
      agent,
      'Orders',
      [orderStatus],
      [
        { type: 'API', data: { url: `${orders.origin}/orders/42`, method: 'GET', variables: [{ key: 'order_status', value: 'status' }] } },
        {
          type: 'CREATE_RECORD_ACTIVITY',
          data: { recordTypeId, rowId: person, activityType: 'NOTE', content: 'Asked: {last_user_message}' },
        },
        { type: 'SAY_AI', data: { message: 'Your order is {order_status}.' } },
      ],
    );
    const conversation = await startConversation(a, agent);
    orders.urls.length = 0;

    const turn = await say(a, agent, conversation.id, 'Hey, where is my order??');
    expect(texts(turn)).to.deep.equal(['Your order is shipped.']);
    expect(turn).to.include({ conversationId: conversation.id, turn: 1 });
    expect(turn.messages[0]).to.include({ flowId, nodeId: nodeIds[3], author: 'agent' });
    expect(turn.temporal.workflowId).to.equal(`conversation:${conversation.id}`);
    expect(orders.urls).to.deep.equal(['/orders/42']);
    const activities = (await call('GET', `/objects/people/rows/${person}/activities`, { key: a.userKey })).body.agentry;
    expect(activities.map((x: { content: string; autoGenerated: boolean }) => [x.content, x.autoGenerated])).to.deep.equal([
      ['Asked: Hey, where is my order??', true],
    ]);
    expect((await ok('GET', `${agent.base}/flows/${flowId}`, a.generalKey)).runCount).to.equal(1);

    // The transcript holds both sides with turn, flow and node; the user's message first.
    const transcript = await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey);
    expect(transcript.messages.map((m: { author: string; text: string; turn: number }) => [m.author, m.turn, m.text])).to.deep.equal([
      ['agent', 0, 'Hello!'],
      ['user', 1, 'Hey, where is my order??'],
      ['agent', 1, 'Your order is shipped.'],
    ]);
    expect(transcript).to.include({ turns: 1, messageCount: 3, status: 'ACTIVE' });
    // Each message links to the Temporal execution of its turn.
    expect(transcript.messages.map((m: { temporalRunId: string }) => m.temporalRunId)).to.deep.equal(Array(3).fill(turn.temporal.runId));
  });

  it('RESPONSE_AI waits for the next message and captures the answer into a variable the flow then uses', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    await ok('POST', `${agent.base}/variables`, a.userKey, { name: 'email' });
    const newsletter = await intent(a, agent, 'newsletter', ['sign me up for the newsletter', 'subscribe to newsletter']);
    await intentFlow(
      a,
      agent,
      'Newsletter',
      [newsletter],
      [
        { type: 'SAY_AI', data: { message: 'Sure! What is your email address?' } },
        { type: 'RESPONSE_AI', data: { instructions: 'The user gives an email address', captureVariables: [{ name: 'email' }] } },
        { type: 'SAY_AI', data: { message: 'Thanks, {email} is subscribed.' } },
      ],
    );
    const conversation = await startConversation(a, agent);
    expect(texts(await say(a, agent, conversation.id, 'please subscribe me to the newsletter'))).to.deep.equal(['Sure! What is your email address?']);
    ai().script({ content: JSON.stringify({ email: 'ada@example.test' }), usage: { prompt_tokens: 50, completion_tokens: 8 } });
    const answered = await say(a, agent, conversation.id, 'it is ada@example.test, thanks');
    expect(texts(answered)).to.deep.equal(['Thanks, ada@example.test is subscribed.']);
    // The capture was the AI's structured extraction from the user's answer.
    expect(ai().chats).to.have.length(1);
    expect(JSON.stringify(ai().chats[0]!.body.messages)).to.contain('it is ada@example.test, thanks');
  });

  it('a message no flow takes gets the AI-written default reply, with its credits; a resent messageId answers the same turn', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const conversation = await startConversation(a, agent);
    ai().script({ content: 'I can help with orders and opening hours.', usage: { prompt_tokens: 30, completion_tokens: 9 } });
    const turn = await say(a, agent, conversation.id, 'tell me a joke', 'client-msg-1');
    expect(texts(turn)).to.deep.equal(['I can help with orders and opening hours.']);
    expect(turn.messages[0]).to.include({ flowId: null, nodeId: null });
    expect(turn.messages[0].credits).to.be.greaterThan(0);
    expect(JSON.stringify(ai().chats[0]!.body.messages)).to.contain('tell me a joke');
    const again = await say(a, agent, conversation.id, 'tell me a joke', 'client-msg-1');
    expect(again).to.deep.equal(turn);
    expect(ai().chats).to.have.length(1);
    const transcript = await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey);
    expect(transcript.messageCount).to.equal(3);
    expect(transcript.creditsUsed).to.equal(turn.messages[0].credits);
  });

  it('ending fires CONVERSATION_ENDED and feedback FEEDBACK_CAPTURED for the workflows of that agent; an ended conversation takes no message', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const log = await newTable(a.userKey, 'conversation_log', ['What']);
    const row = (what: string) => ({ type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId: log, rowData: { What: what } } });
    const ended = await activeChain(a.userKey, 'On end', [
      { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_ENDED', triggeredByAgentIds: [agent.id] } },
      row('ended {trigger_payload.conversationId} {trigger_payload.reason}'),
    ]);
    const feedback = await activeChain(a.userKey, 'On feedback', [
      { type: 'TRIGGER', data: { triggerType: 'FEEDBACK_CAPTURED', triggeredByAgentIds: [agent.id] } },
      row('rated {trigger_payload.rating}'),
    ]);
    const conversation = await startConversation(a, agent);

    const closed = await ok('POST', `${agent.base}/conversations/${conversation.id}/end`, a.generalKey, undefined, 200);
    expect(closed).to.include({ status: 'ENDED', endReason: 'USER' });
    expect(closed.endedAt).to.be.a('string');
    expect((await ok('POST', `${agent.base}/conversations/${conversation.id}/end`, a.generalKey, undefined, 200)).status).to.equal('ENDED');
    await refused('POST', `${agent.base}/conversations/${conversation.id}/messages`, a.generalKey, 409, { text: 'hello?' });
    const rated = await ok('POST', `${agent.base}/conversations/${conversation.id}/feedback`, a.generalKey, { rating: 5, comment: 'Great' }, 200);
    expect(rated.feedback).to.deep.equal({ rating: 5, comment: 'Great' });

    await eventually(async () => ((await ledgerRuns(feedback.id)).length && (await ledgerRuns(ended.id)).length ? true : undefined), 'both runs');
    const whats = await eventually(async () => {
      const rows = (await rowsOf(a.userKey, 'conversation_log')).map((r) => r.data.What as string).sort();
      return rows.length === 2 ? rows : undefined;
    }, 'two log rows');
    expect(whats).to.deep.equal([`ended ${conversation.id} USER`, 'rated 5']);
    expect(await ledgerRuns(ended.id)).to.have.length(1);
    const handle = harness().env.client.workflow.getHandle(conversation.temporalWorkflowId);
    expect((await handle.describe()).status.name).to.equal('COMPLETED');
  });

  it('SEND_MESSAGE of an automation writes to the conversation, and the stream delivers it as it comes', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const conversation = await startConversation(a, agent);
    const controller = new AbortController();
    const stream = await fetch(`${harness().baseUrl}${agent.base}/conversations/${conversation.id}/stream`, {
      headers: { authorization: `Bearer ${a.generalKey}` },
      signal: controller.signal,
    });
    expect(stream.status).to.equal(200);
    expect(stream.headers.get('content-type')).to.match(/text\/event-stream/);
    const reader = stream.body!.getReader();
    let received = '';
    const until = async (text: string) => {
      while (!received.includes(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before "${text}": ${received}`);
        received += new TextDecoder().decode(value);
      }
    };
    await until('Hello!');

    const id = (await call('POST', '/workflows', { key: a.userKey, body: { name: 'Notify' } })).body.id as number;
    const send = (
      await call('POST', `/workflows/${id}/nodes`, {
        key: a.userKey,
        body: { type: 'SEND_MESSAGE', data: { conversationId: conversation.id, message: 'Your parcel left the warehouse.' } },
      })
    ).body.nodes.at(-1).nodeId;
    const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key: a.userKey, body: { entryNodeId: send } });
    expect(started.status, started.text).to.equal(202);
    expect((await awaitRun(started.body.id)).successful).to.equal(true);
    await until('Your parcel left the warehouse.');
    controller.abort();
    const transcript = await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey);
    expect(texts(transcript)).to.deep.equal(['Hello!', 'Your parcel left the warehouse.']);
    // Another account's conversation is not reachable by id.
    const other = await newAccount();
    const send2 = await call('POST', '/workflows', { key: other.userKey, body: { name: 'Intruder' } });
    const node = (
      await call('POST', `/workflows/${send2.body.id}/nodes`, {
        key: other.userKey,
        body: { type: 'SEND_MESSAGE', data: { conversationId: conversation.id, message: 'hi' } },
      })
    ).body.nodes.at(-1).nodeId;
    const run = await call('POST', `/workflows/${send2.body.id}/runs?snapshot=draft`, { key: other.userKey, body: { entryNodeId: node } });
    const result = await awaitRun(run.body.id).catch((error: { details?: unknown[] }) => error);
    expect(JSON.stringify(result)).to.match(/not found in this account/);
  });

  it('lists transcripts newest first with filters and pages, and counts them in the agent analytics', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const first = await startConversation(a, agent);
    const second = await startConversation(a, agent);
    const third = await startConversation(a, agent);
    await ok('POST', `${agent.base}/conversations/${second.id}/end`, a.generalKey, undefined, 200);
    const page = await ok('GET', `${agent.base}/conversations?limit=2`, a.userKey);
    expect(page.agentry.map((c: { id: string }) => c.id)).to.deep.equal([third.id, second.id]);
    const rest = await ok('GET', `${agent.base}/conversations?limit=2&cursor=${page.nextCursor}`, a.userKey);
    expect(rest.agentry.map((c: { id: string }) => c.id)).to.deep.equal([first.id]);
    expect(rest.nextCursor).to.equal(null);
    const endedOnly = await ok('GET', `${agent.base}/conversations?status=ENDED`, a.userKey);
    expect(endedOnly.agentry.map((c: { id: string }) => c.id)).to.deep.equal([second.id]);
    expect((await ok('GET', `${agent.base}/conversations?channel=messaging`, a.userKey)).agentry).to.deep.equal([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await ok('GET', `${agent.base}/conversations?endDate=2000-01-01`, a.userKey)).agentry).to.deep.equal([]);
    await refused('GET', `${agent.base}/conversations?cursor=bogus`, a.userKey, 400);
    await refused('GET', `${agent.base}/conversations/${first.id}`, (await newAccount()).userKey, 404);

    const analytics = await ok('GET', `${agent.base}/analytics?startDate=${today}&endDate=${today}`, a.generalKey);
    expect(analytics.conversations).to.deep.equal({ total: 3, ended: 1, withFeedback: 0, handedOff: 0 });
    expect(analytics.byChannel.find((c: { channel: string }) => c.channel === 'livechat')).to.deep.equal({
      channel: 'livechat',
      conversations: 3,
      messages: 3,
      credits: 0,
    });
  });

  it("takes a message only into its own agent's conversation: 404 naming the agent or the conversation otherwise", async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const other = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hi!' } }]);
    const conversation = await startConversation(a, agent);
    const send = (base: string, id: string, key = a.userKey) => refused('POST', `${base}/conversations/${id}/messages`, key, 404, { text: 'hi' });
    expect((await send(agent.base, conversation.id, (await newAccount()).userKey)).message).to.match(/^Agent .* not found/);
    expect((await send(other.base, conversation.id)).message).to.equal(`Conversation ${conversation.id} not found`);
    expect((await send(agent.base, '00000000-0000-4000-8000-000000000000')).message).to.match(/^Conversation .* not found/);
    expect((await send(agent.base, 'not-a-conversation')).message).to.equal('Conversation not-a-conversation not found');
    expect((await send('/agents/not-an-agent', conversation.id)).message).to.equal('Agent not-an-agent not found');
  });

  it('an idle conversation fires CONVERSATION_IDLE once per quiet period, through a durable timer a message resets', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    await ok('PUT', `${agent.base}/settings/livechat`, a.userKey, { enableIdle: true, idleSettings: { idleMinutes: 1 } }, 200);
    const log = await newTable(a.userKey, 'idle_log', ['What']);
    const idle = await activeChain(a.userKey, 'On idle', [
      { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_IDLE', triggeredByAgentIds: [agent.id] } },
      { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId: log, rowData: { What: 'idle after {trigger_payload.turns}' } } },
    ]);
    // The channel's idle time (a minute at least) is too long for a test: the conversation workflow is given 1.5 s.
    const started = await startConversation(a, agent);
    const handle = await restartConversation(started, a, agent.id, { idleMinutes: 0.025 });
    const rows = await eventually(async () => {
      const found = await rowsOf(a.userKey, 'idle_log');
      return found.length ? found : undefined;
    }, 'the idle run');
    expect(rows.map((r) => r.data.What)).to.deep.equal(['idle after 0']);
    // Quiet for longer than the idle period: a timer firing again would have shown as a second event and run.
    const settled = await quiet(async () => ({ runs: (await ledgerRuns(idle.id)).length, rows: (await rowsOf(a.userKey, 'idle_log')).length }), {
      settleMs: 2_500,
      busy: [undispatchedEvents(a.account.id), openRuns({ automationId: idle.id })],
      what: 'the idle workflow',
    });
    expect(settled).to.deep.equal({ runs: 1, rows: 1 });
    // A message resets the timer: one more quiet period, one more event.
    ai().script({ content: 'Still here!' });
    await say(a, agent, started.id, 'are you there?');
    await eventually(async () => ((await ledgerRuns(idle.id)).length === 2 ? true : undefined), 'the second idle run');
    await handle.terminate('done');
  });

  it('a message moves the expiry: the conversation ends an expiry time after its last message, not its first', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const started = await startConversation(a, agent);
    // 3 s to expire; a message every 1.2 s keeps it going past its first deadline.
    const handle = await restartConversation(started, a, agent.id, { expireMinutes: 0.05 });
    for (let i = 0; i < 3; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      ai().script({ content: `Still here (${i})` });
      expect(texts(await say(a, agent, started.id, 'still there?'))).to.deep.equal([`Still here (${i})`]);
    }
    const lastMessageAt = Date.now();
    await handle.result();
    expect(Date.now() - lastMessageAt).to.be.greaterThan(2_000);
    expect(await ok('GET', `${agent.base}/conversations/${started.id}`, a.userKey)).to.include({ status: 'ENDED', endReason: 'EXPIRED' });
  });

  it('a conversation left alone ends by itself (EXPIRED), firing CONVERSATION_ENDED', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const log = await newTable(a.userKey, 'expired_log', ['What']);
    await activeChain(a.userKey, 'On expiry', [
      { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_ENDED', triggeredByAgentIds: [agent.id] } },
      { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId: log, rowData: { What: '{trigger_payload.reason}' } } },
    ]);
    const started = await startConversation(a, agent);
    const handle = await restartConversation(started, a, agent.id, { expireMinutes: 0.02 });
    await handle.result();
    const ended = await ok('GET', `${agent.base}/conversations/${started.id}`, a.userKey);
    expect(ended).to.include({ status: 'ENDED', endReason: 'EXPIRED' });
    const rows = await eventually(async () => {
      const found = await rowsOf(a.userKey, 'expired_log');
      return found.length ? found : undefined;
    }, 'the run of the ended conversation');
    expect(rows.map((r) => r.data.What)).to.deep.equal(['EXPIRED']);
    await refused('POST', `${agent.base}/conversations/${started.id}/messages`, a.generalKey, 409, { text: 'hello?' });
  });
});

describe('conversation flows follow what is published', function () {
  this.timeout(60_000);
  it('messages sent at once are answered one turn after the other, in the order they arrived', async () => {
    const a = await newAccount();
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Welcome' } }]);
    const hours = await intent(a, agent, 'opening hours', ['when are you open']);
    await intentFlow(
      a,
      agent,
      'Hours',
      [hours],
      [
        { type: 'SAY_AI', data: { message: 'We open at 9.' } },
        { type: 'SAY_AI', data: { message: 'You asked: {last_user_message}' } },
      ],
    );
    const conversation = await startConversation(a, agent);
    const questions = ['when are you open (1)', 'when are you open (2)', 'when are you open (3)', 'when are you open (4)'];
    const turns = await Promise.all(questions.map((q) => say(a, agent, conversation.id, q)));
    expect(turns.map((t) => t.turn).sort()).to.deep.equal([1, 2, 3, 4]);
    for (const [i, t] of turns.entries()) expect(texts(t)).to.deep.equal(['We open at 9.', `You asked: ${questions[i]}`]);
    // No interleaving: each turn's user message is followed by that turn's two answers.
    const transcript = (await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey)).messages as { turn: number; author: string }[];
    expect(transcript.map((m) => `${m.turn}:${m.author}`)).to.deep.equal([
      '0:agent',
      ...[1, 2, 3, 4].flatMap((turn) => [`${turn}:user`, `${turn}:agent`, `${turn}:agent`]),
    ]);
  });

  it('publishing a flow changes what the next turn runs', async () => {
    const a = await newAccount();
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Welcome' } }]);
    const hours = await intent(a, agent, 'opening hours', ['when are you open', 'what are your opening hours']);
    const { flowId, nodeIds } = await intentFlow(a, agent, 'Hours', [hours], [{ type: 'SAY_AI', data: { message: 'We open at 9.' } }]);
    const conversation = await startConversation(a, agent);
    expect(texts(await say(a, agent, conversation.id, 'When are you open?'))).to.deep.equal(['We open at 9.']);
    await ok('PUT', `${agent.base}/flows/${flowId}/nodes/${nodeIds[1]}`, a.generalKey, { type: 'SAY_AI', data: { message: 'We open at 8 now.' } });
    expect(texts(await say(a, agent, conversation.id, 'what are your opening hours'))).to.deep.equal(['We open at 9.']);
    await publish(a, agent, flowId);
    expect(texts(await say(a, agent, conversation.id, 'what are your opening hours'))).to.deep.equal(['We open at 8 now.']);
    await chain(a, agent, flowId, [{ type: 'SAY_AI', data: { message: 'Anything else?' } }], nodeIds[1]);
    await publish(a, agent, flowId);
    expect(texts(await say(a, agent, conversation.id, 'when are you open'))).to.deep.equal(['We open at 8 now.', 'Anything else?']);
  });
});
