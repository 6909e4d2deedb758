/**
 * A person takes a conversation over, through the HTTP API on the real worker and Temporal: the AI's
 * `handoff_to_human` call and a flow's SAY_AI hand it off; while HANDED_OFF user messages are recorded and not
 * answered; operators' messages reach the transcript, the API stream and the widget stream; `resume` hands it back.
 */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { DEFAULT_HANDOFF_MESSAGE } from '../../../activities/handoff.activity.js';
import { ok, refused, type Account } from './agent-calls.helpers.js';
import { intent, intentFlow, say, startConversation, talkingAgent, texts } from './conversation.helpers.js';
import { conversationPath, sessionsPath, widgetCall } from '../widget/widget.helpers.js';

const ai = () => harness().ai;
const toolNames = (chat: { body: Record<string, unknown> }) =>
  ((chat.body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name);

/** Reads a server-sent event stream until a text shows up. */
async function openStream(url: string, authorization: string) {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization }, signal: controller.signal });
  expect(response.status).to.equal(200);
  const reader = response.body!.getReader();
  let received = '';
  return {
    async until(text: string) {
      while (!received.includes(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before "${text}": ${received}`);
        received += new TextDecoder().decode(value);
      }
      return received;
    },
    close: () => controller.abort(),
  };
}

describe('handoff to a person', function () {
  this.timeout(60_000);
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  it("the AI's handoff_to_human hands it off: silent while HANDED_OFF, operators write to the stream, resume hands it back", async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    await ok('PUT', `${agent.base}/agent-setting`, a.userKey, { systemToolSettings: { handoffToHuman: true } }, 200);
    const conversation = await startConversation(a, agent);
    const path = `${agent.base}/conversations/${conversation.id}`;

    ai().script({ toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'wants a refund' } }] }, { content: 'Let me find a colleague.' });
    const turn = await say(a, agent, conversation.id, 'I want to talk to a human');
    expect(texts(turn)).to.deep.equal(['Let me find a colleague.', DEFAULT_HANDOFF_MESSAGE]);
    expect(toolNames(ai().chats[0]!)).to.have.members(['end_conversation', 'handoff_to_human']);
    const handed = await ok('GET', path, a.userKey);
    expect(handed).to.include({ status: 'HANDED_OFF', handoffs: 1 });
    const listed = await ok('GET', `${agent.base}/conversations?status=HANDED_OFF`, a.userKey);
    expect(listed.agentry.map((c: { id: string }) => c.id)).to.deep.equal([conversation.id]);
    expect((await ok('GET', `${agent.base}/conversations?status=ACTIVE`, a.userKey)).agentry).to.deep.equal([]);

    // Handed off: the user's message is in the transcript, and nobody answers it (no AI call, no flow).
    ai().script();
    const silent = await say(a, agent, conversation.id, 'hello? anyone?');
    expect(silent.messages).to.deep.equal([]);
    expect(ai().chats).to.have.length(0);

    // The operator writes: the message is stored with its author and reaches the conversation's stream.
    const stream = await openStream(`${harness().baseUrl}${path}/stream`, `Bearer ${a.generalKey}`);
    await stream.until('hello? anyone?');
    const written = await ok('POST', `${path}/operator-messages`, a.userKey, {
      text: 'Hi, Dana here. Let me look.',
      name: 'Dana',
      messageId: 'op-1',
    });
    expect(written).to.include({ author: 'operator', text: 'Hi, Dana here. Let me look.' });
    expect(written.metadata.operator).to.deep.include({ name: 'Dana' });
    expect(written.metadata.operator.userId).to.be.a('number');
    const received = await stream.until('Dana here');
    stream.close();
    expect(received).to.match(/"author":"operator"/);
    // A resent messageId answers the stored message; a GENERAL key, or another account, cannot write.
    const again = await ok('POST', `${path}/operator-messages`, a.userKey, { text: 'Hi, Dana here. Let me look.', messageId: 'op-1' });
    expect(again.id).to.equal(written.id);
    await refused('POST', `${path}/operator-messages`, a.generalKey, 403, { text: 'hi' });
    const other = await newAccount();
    await refused('POST', `${path}/operator-messages`, other.userKey, 404, { text: 'hi' });
    await refused('POST', `${path}/resume`, other.userKey, 404);

    const transcript = await ok('GET', path, a.userKey);
    expect(transcript.messages.map((m: { author: string; text: string }) => `${m.author}: ${m.text}`)).to.deep.equal([
      'agent: Hello!',
      'user: I want to talk to a human',
      'agent: Let me find a colleague.',
      `agent: ${DEFAULT_HANDOFF_MESSAGE}`,
      'user: hello? anyone?',
      'operator: Hi, Dana here. Let me look.',
    ]);
    expect(transcript).to.include({ messageCount: 6, turns: 2 });

    // Resume: the agent answers again; operators may no longer write, and resuming twice is refused.
    const resumed = await ok('POST', `${path}/resume`, a.userKey, undefined, 200);
    expect(resumed).to.include({ status: 'ACTIVE', handoffs: 1 });
    ai().script({ content: 'I am back. Your refund is on its way.' });
    expect(texts(await say(a, agent, conversation.id, 'thanks'))).to.deep.equal(['I am back. Your refund is on its way.']);
    // The AI reads the operator's message as the agent side of the transcript.
    const seen = JSON.stringify(ai().chats[0]!.body.messages);
    expect(seen).to.include('Hi, Dana here');
    expect((await refused('POST', `${path}/operator-messages`, a.userKey, 409, { text: 'hi' })).message).to.match(/not handed off/);
    expect((await refused('POST', `${path}/resume`, a.userKey, 409)).message).to.match(/not handed off/);

    const today = new Date().toISOString().slice(0, 10);
    const analytics = await ok('GET', `${agent.base}/analytics?startDate=${today}&endDate=${today}`, a.generalKey);
    expect(analytics.conversations).to.include({ total: 1, handedOff: 1 });
    const described = await harness()
      .env.client.workflow.getHandle(conversation.temporalWorkflowId)
      .query<{ handedOff?: boolean; handoffs?: number }>('state');
    expect(described).to.include({ handedOff: false, handoffs: 1 });
  });

  it("a flow hands off with SAY_AI's conversationAction (the agent's own notice); operator messages reach the widget stream", async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Welcome!' } }]);
    await ok('PUT', `${agent.base}/agent-setting`, a.userKey, { systemToolSettings: { handoffMessage: 'A teammate joins you now.' } }, 200);
    const human = await intent(a, agent, 'human', ['talk to a person', 'speak to a human']);
    await intentFlow(a, agent, 'Human', [human], [{ type: 'SAY_AI', data: { message: 'Sure.', conversationAction: 'handoff_to_human' } }]);

    const session = await widgetCall('POST', sessionsPath(agent.id), {});
    expect(session.status, JSON.stringify(session.body)).to.equal(201);
    const { token, conversationId } = session.body;
    ai().script();
    const turn = await widgetCall('POST', conversationPath(agent.id, conversationId, '/messages'), {
      token,
      body: { text: 'I want to talk to a person' },
    });
    expect(turn.body.messages.map((m: { text: string }) => m.text)).to.deep.equal(['Sure.', 'A teammate joins you now.']);
    expect(ai().chats).to.have.length(0);
    const read = await widgetCall('GET', conversationPath(agent.id, conversationId), { token });
    expect(read.body.status).to.equal('HANDED_OFF');
    // A reload resumes the handed-off conversation.
    const reload = await widgetCall('POST', sessionsPath(agent.id), { body: { resume: token } });
    expect(reload.body).to.include({ conversationId, resumed: true });

    const stream = await openStream(`${harness().origin}${conversationPath(agent.id, conversationId, '/stream')}`, `Bearer ${token}`);
    await stream.until('A teammate joins you now.');
    const silent = await widgetCall('POST', conversationPath(agent.id, conversationId, '/messages'), { token, body: { text: 'ok, waiting' } });
    expect(silent.body.messages).to.deep.equal([]);
    await ok('POST', `${agent.base}/conversations/${conversationId}/operator-messages`, a.userKey, { text: 'Hello, this is Sam.' });
    const received = await stream.until('Hello, this is Sam.');
    stream.close();
    expect(received).to.include('ok, waiting');
    // The visitor sees the operator's message, not the id of the operator's user in the account.
    expect(received).to.include('"operator":{"userId":null');
    const reread = await widgetCall('GET', conversationPath(agent.id, conversationId), { token });
    expect(reread.body.messages.at(-1).metadata.operator).to.deep.equal({ userId: null, name: null });

    // An operator may also take over by hand, and the end still works while handed off.
    await ok('POST', `${agent.base}/conversations/${conversationId}/handoff`, a.userKey, undefined, 200);
    const ended = await ok('POST', `${agent.base}/conversations/${conversationId}/end`, a.generalKey, undefined, 200);
    expect(ended).to.include({ status: 'ENDED', handoffs: 1 });
    await refused('POST', `${agent.base}/conversations/${conversationId}/operator-messages`, a.userKey, 409, { text: 'still there?' });
  });

  it('an operator takes over an active conversation by hand (POST .../handoff), and a TOOLS_AI flow node offers its own systemTools', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hi' } }]);
    await ok('PUT', `${agent.base}/agent-setting`, a.userKey, { systemToolSettings: { endConversation: false } }, 200);
    const conversation = await startConversation(a, agent);
    const path = `${agent.base}/conversations/${conversation.id}`;
    const taken = await ok('POST', `${path}/handoff`, a.userKey, undefined, 200);
    expect(taken).to.include({ status: 'HANDED_OFF', handoffs: 1 });
    expect((await ok('POST', `${path}/handoff`, a.userKey, undefined, 200)).handoffs, 'a second handoff changes nothing').to.equal(1);
    await ok('POST', `${path}/resume`, a.userKey, undefined, 200);

    const billing = await intent(a, agent, 'billing', ['billing question', 'my invoice is wrong']);
    await intentFlow(
      a,
      agent,
      'Billing',
      [billing],
      [{ type: 'TOOLS_AI', data: { instructions: 'Billing is for people.', systemTools: ['handoff_to_human'] } }],
    );
    ai().script({ toolCalls: [{ name: 'handoff_to_human', arguments: {} }] }, { content: 'Passing you to billing.' });
    const turn = await say(a, agent, conversation.id, 'my invoice is wrong');
    expect(texts(turn)).to.deep.equal(['Passing you to billing.', DEFAULT_HANDOFF_MESSAGE]);
    expect(toolNames(ai().chats[0]!)).to.deep.equal(['handoff_to_human']);
    expect((await ok('GET', path, a.userKey)).handoffs).to.equal(2);
  });
});
