/**
 * The system tools of the agent setting, acting through the HTTP API with the local AI server scripting the model's
 * tool calls: end_conversation fires CONVERSATION_ENDED, collect_feedback FEEDBACK_CAPTURED, web_search asks the
 * local search server and the reply cites its pages; tools the setting turns off are not offered.
 */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { eventually, ledgerRuns } from '../../setup/runs.js';
import { activeChain, newTable, rowsOf } from '../active-automations.helpers.js';
import { ok, refused, type Account } from './agent-calls.helpers.js';
import { say, startConversation, talkingAgent, texts } from './conversation.helpers.js';

const ai = () => harness().ai;
const toolNames = (chat: { body: Record<string, unknown> }) =>
  ((chat.body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name);
const toolAnswers = (chat: { body: Record<string, unknown> }) =>
  (chat.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool').map((m) => m.content);

describe('system tools', function () {
  this.timeout(60_000);
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  async function agentWith(systemToolSettings: Record<string, boolean>) {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    await ok('PUT', `${agent.base}/agent-setting`, a.userKey, { systemToolSettings }, 200);
    return agent;
  }

  it('end_conversation ends the conversation after the reply (reason AGENT): CONVERSATION_ENDED runs its automation once', async () => {
    const agent = await agentWith({ endConversation: true });
    const log = await newTable(a.userKey, 'ended_by_agent', ['What']);
    const ended = await activeChain(a.userKey, 'On agent end', [
      { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_ENDED', triggeredByAgentIds: [agent.id] } },
      { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId: log, rowData: { What: 'ended {trigger_payload.reason}' } } },
    ]);
    const conversation = await startConversation(a, agent);
    ai().script({ toolCalls: [{ name: 'end_conversation', arguments: {} }] }, { content: 'Goodbye, have a nice day!' });
    const turn = await say(a, agent, conversation.id, "that's all, bye");
    expect(texts(turn)).to.deep.equal(['Goodbye, have a nice day!']);
    const closed = await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey);
    expect(closed).to.include({ status: 'ENDED', endReason: 'AGENT' });
    await refused('POST', `${agent.base}/conversations/${conversation.id}/messages`, a.generalKey, 409, { text: 'wait' });
    const rows = await eventually(async () => {
      const found = await rowsOf(a.userKey, 'ended_by_agent');
      return found.length ? found : undefined;
    }, 'the CONVERSATION_ENDED run');
    expect(rows.map((r) => r.data.What)).to.deep.equal(['ended AGENT']);
    expect(await ledgerRuns(ended.id)).to.have.length(1);
    const handle = harness().env.client.workflow.getHandle(conversation.temporalWorkflowId);
    expect((await handle.describe()).status.name).to.equal('COMPLETED');
  });

  it('collect_feedback asks for the rating, records the one the user gives (as POST .../feedback does) and fires FEEDBACK_CAPTURED', async () => {
    const agent = await agentWith({ collectFeedback: true, endConversation: false });
    const log = await newTable(a.userKey, 'rated_by_tool', ['What']);
    await activeChain(a.userKey, 'On tool feedback', [
      { type: 'TRIGGER', data: { triggerType: 'FEEDBACK_CAPTURED', triggeredByAgentIds: [agent.id] } },
      {
        type: 'DYNAMIC_TABLES',
        data: { action: 'CREATE', tableId: log, rowData: { What: 'rated {trigger_payload.rating}: {trigger_payload.comment}' } },
      },
    ]);
    const conversation = await startConversation(a, agent);
    // No rating yet: the tool tells the model to ask for one, and nothing is recorded.
    ai().script({ toolCalls: [{ name: 'collect_feedback', arguments: {} }] }, { content: 'How would you rate this chat, from 1 to 5?' });
    expect(texts(await say(a, agent, conversation.id, 'thanks, solved'))).to.deep.equal(['How would you rate this chat, from 1 to 5?']);
    expect(toolNames(ai().chats[0]!)).to.deep.equal(['collect_feedback']);
    expect(toolAnswers(ai().chats[1]!)[0]).to.match(/ask the user to rate/);
    expect((await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey)).feedback).to.equal(null);
    // The answer comes in the next turn; the model records it.
    ai().script({ toolCalls: [{ name: 'collect_feedback', arguments: { rating: 4, comment: 'quick help' } }] }, { content: 'Thank you!' });
    expect(texts(await say(a, agent, conversation.id, '4, quick help'))).to.deep.equal(['Thank you!']);
    const rated = await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey);
    expect(rated.feedback).to.deep.equal({ rating: 4, comment: 'quick help' });
    expect(rated.status).to.equal('ACTIVE');
    const rows = await eventually(async () => {
      const found = await rowsOf(a.userKey, 'rated_by_tool');
      return found.length ? found : undefined;
    }, 'the FEEDBACK_CAPTURED run');
    expect(rows.map((r) => r.data.What)).to.deep.equal(['rated 4: quick help']);
  });

  it('web_search asks the search API (SearxNG JSON) and the reply cites the pages it uses', async () => {
    const agent = await agentWith({ webSearch: true, endConversation: false });
    const search = harness().search;
    search.queries.length = 0;
    search.results = [
      { title: 'Release notes 2.0', url: 'https://example.com/releases/2.0', content: 'Version 2.0 shipped on Monday.' },
      { title: 'Roadmap', url: 'https://example.com/roadmap', content: 'Version 3 is planned.' },
      { title: 'Not a web page', url: 'ftp://example.com/file', content: 'ignored' },
    ];
    const conversation = await startConversation(a, agent);
    ai().script({ toolCalls: [{ name: 'web_search', arguments: { query: 'latest release' } }] }, { content: 'Version 2.0 shipped on Monday [1].' });
    const turn = await say(a, agent, conversation.id, 'what is the latest release?');
    expect(texts(turn)).to.deep.equal(['Version 2.0 shipped on Monday [1].']);
    expect(turn.messages[0].citations).to.deep.equal([{ url: 'https://example.com/releases/2.0', title: 'Release notes 2.0' }]);
    expect(search.queries).to.deep.equal([{ q: 'latest release', format: 'json' }]);
    const shown = JSON.parse(toolAnswers(ai().chats[1]!)[0]!);
    expect(shown.results.map((r: { n: number; url: string }) => [r.n, r.url])).to.deep.equal([
      [1, 'https://example.com/releases/2.0'],
      [2, 'https://example.com/roadmap'],
    ]);
    const transcript = await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey);
    expect(transcript.messages.at(-1).citations).to.deep.equal([{ url: 'https://example.com/releases/2.0', title: 'Release notes 2.0' }]);
    // The people reading the transcript see which tools the AI called before it answered.
    expect(transcript.messages.at(-1).metadata).to.deep.equal({ toolCalls: [{ name: 'web_search', arguments: { query: 'latest release' } }] });

    // A failing search service is reported to the model, which still answers.
    search.status = 503;
    try {
      ai().script({ toolCalls: [{ name: 'web_search', arguments: { query: 'weather' } }] }, { content: 'I could not search right now.' });
      expect(texts(await say(a, agent, conversation.id, 'weather today?'))).to.deep.equal(['I could not search right now.']);
      expect(toolAnswers(ai().chats[1]!)[0]).to.match(/web search failed: the search service answered 503/);
    } finally {
      search.status = 200;
    }
  });

  it('tools the agent setting turns off are not offered, and calling one anyway does nothing', async () => {
    const agent = await agentWith({ endConversation: false, handoffToHuman: false, collectFeedback: false, webSearch: false });
    const conversation = await startConversation(a, agent);
    ai().script({ content: 'Sure, happy to help.' });
    expect(texts(await say(a, agent, conversation.id, 'bye and get me a human'))).to.deep.equal(['Sure, happy to help.']);
    expect(ai().chats[0]!.body.tools).to.equal(undefined);
    // A model calling a tool it was not offered is told so; the conversation stays with the agent.
    await ok('PUT', `${agent.base}/agent-setting`, a.userKey, { systemToolSettings: { webSearch: true } }, 200);
    ai().script({ toolCalls: [{ name: 'handoff_to_human', arguments: {} }] }, { content: 'I cannot do that.' });
    expect(texts(await say(a, agent, conversation.id, 'a human please'))).to.deep.equal(['I cannot do that.']);
    expect(toolNames(ai().chats[0]!)).to.deep.equal(['web_search']);
    expect(toolAnswers(ai().chats[1]!)[0]).to.match(/there is no tool handoff_to_human/);
    expect((await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey)).status).to.equal('ACTIVE');
  });
});
