/**
 * Conversation streams wake on PostgreSQL notices, not on a timer: an open stream that nothing happens to reads
 * nothing; a message written by any writer reaches it; when the listening connection is cut, the stream re-reads once
 * it is back and misses nothing; a reconnect with `Last-Event-ID` resumes after that message; the end closes it.
 */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { eventually } from '../../setup/runs.js';
import { ok, type Account } from './agent-calls.helpers.js';
import { intent, intentFlow, say, startConversation, talkingAgent, type TalkingAgent } from './conversation.helpers.js';

/** An open stream of the conversation, read as it comes. */
async function openStream(a: Account, agent: TalkingAgent, conversationId: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(`${harness().baseUrl}${agent.base}/conversations/${conversationId}/stream`, {
    headers: { authorization: `Bearer ${a.generalKey}`, ...headers },
    signal: controller.signal,
  });
  expect(response.status).to.equal(200);
  const reader = response.body!.getReader();
  const stream = {
    received: '',
    ended: false,
    /** The `message` events so far: [id, text]. */
    messages: () => [...stream.received.matchAll(/id: (\d+)\nevent: message\ndata: (.*)\n/g)].map(([, id, data]) => [id, JSON.parse(data).text]),
    async until(text: string) {
      while (!stream.received.includes(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before "${text}": ${stream.received}`);
        stream.received += new TextDecoder().decode(value);
      }
    },
    close: () => controller.abort(),
  };
  return stream;
}

/** The statements run against one conversation's rows while `during` runs. */
async function statementsAbout(conversationId: string, during: () => Promise<void>): Promise<string[]> {
  const knex = harness().orm.em.getKnex();
  const seen: string[] = [];
  const onQuery = (query: { sql: string; bindings?: unknown[] }) => {
    if ((query.bindings ?? []).includes(conversationId)) seen.push(query.sql);
  };
  knex.on('query', onQuery);
  try {
    await during();
  } finally {
    knex.removeListener('query', onQuery);
  }
  return seen;
}

describe('conversation streams on notices', function () {
  this.timeout(60_000);
  let a: Account;
  let agent: TalkingAgent;
  before(async () => {
    a = await newAccount();
    agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    // Questions about opening hours are answered by an intent's flow: no AI call in a turn.
    const hours = await intent(a, agent, 'opening hours', ['what are your opening hours', 'when are you open']);
    await intentFlow(a, agent, 'Hours', [hours], [{ type: 'SAY_AI', data: { message: 'We open at nine.' } }]);
  });

  it('an idle stream reads nothing; a message, even one written while the listener was cut, reaches it; Last-Event-ID resumes', async () => {
    const conversation = await startConversation(a, agent);
    const stream = await openStream(a, agent, conversation.id);
    await stream.until('Hello!');
    // Two idle seconds: polling every 250 ms read the transcript and the status about 16 times in this while.
    const idle = await statementsAbout(conversation.id, () => new Promise((resolve) => setTimeout(resolve, 2_000)));
    expect(idle, 'statements of an idle stream').to.deep.equal([]);

    await say(a, agent, conversation.id, 'what are your opening hours');
    await stream.until('We open at nine.');

    // The listening connection is cut (as when PostgreSQL restarts); a message written now still arrives.
    const knex = harness().orm.em.getKnex();
    const cut = await knex.raw(`select pg_terminate_backend(pid) from pg_stat_activity where query like 'listen agentry_conversations%'`);
    expect(cut.rows.length, 'listening connections cut').to.be.at.least(1);
    await say(a, agent, conversation.id, 'when are you open');
    await stream.until('when are you open');
    await eventually(async () => {
      const { rows } = await knex.raw(`select 1 from pg_stat_activity where query like 'listen agentry_conversations%'`);
      return rows.length ? true : undefined;
    }, 'the listener back');
    const seen = stream.messages();
    expect(new Set(seen.map(([id]) => id)).size, 'no message twice').to.equal(seen.length);
    stream.close();

    // A reconnecting EventSource sends the last id it saw: the stream resumes after it.
    const firstQuestion = seen.find(([, text]) => text === 'what are your opening hours')![0];
    const resumed = await openStream(a, agent, conversation.id, { 'last-event-id': firstQuestion });
    await resumed.until('when are you open');
    expect(resumed.messages().map(([, text]) => text)).to.not.include.members(['Hello!', 'what are your opening hours']);
    await ok('POST', `${agent.base}/conversations/${conversation.id}/end`, a.generalKey, undefined, 200);
    await resumed.until('event: end');
  });
});
