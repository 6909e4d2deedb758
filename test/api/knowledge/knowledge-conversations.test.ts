/**
 * Agents answering from their knowledge bases: the default AI reply retrieves passages for the user's message and
 * cites the documents it used (message and transcript); with nothing relevant it is told to say it does not know; the
 * AI call's Temporal history holds the passages' ids and scores, never their text; TOOLS_AI gets search_knowledge; a
 * knowledge base with multiQuery on has the question reworded before the search.
 */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { recordedActivities } from '../../setup/activity-history.js';
import { ok, refused, type Account } from '../agents/agent-calls.helpers.js';
import { chain, publish, say, startConversation, talkingAgent, type TalkingAgent } from '../agents/conversation.helpers.js';
import { indexed, newKnowledgeBase, upload } from './knowledge.helpers.js';

const WARRANTY = 'The warranty covers manufacturing defects for 24 months from the date of purchase.';
const ai = () => harness().ai;
const systemText = (request: { body: Record<string, unknown> }) =>
  (request.body.messages as { role: string; content: string }[])
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');

describe('knowledge bases: agents answer with citations', function () {
  this.timeout(90_000);
  let a: Account;
  let kb: number;
  let documentId: string;
  let agent: TalkingAgent;

  before(async () => {
    a = await newAccount();
    kb = await newKnowledgeBase(a, 'Kettle');
    const [doc] = await upload(a, kb, [
      {
        name: 'kettle.md',
        type: 'text/markdown',
        bytes: Buffer.from(`# Kettle manual\n\n## Warranty\n\n${WARRANTY}\n\n## Descaling\n\nBoil vinegar and water once.\n`),
      },
    ]);
    documentId = doc!.id;
    await indexed(a, kb);
    agent = await talkingAgent(a);
    await ok('PUT', `${agent.base}/agent-setting`, a.userKey, { knowledgeBaseIds: [kb] }, 200);
  });

  it('grounds the default reply in the passage that answers, cites its document in the message and the transcript, and keeps only ids in history', async () => {
    ai().script({ content: 'Hello! How can I help?' }, { content: 'It is covered for 24 months [1].' });
    const conversation = await startConversation(a, agent);
    const turn = await say(a, agent, conversation.id, 'How long is the warranty?');
    expect(turn.messages.at(-1)).to.deep.include({ text: 'It is covered for 24 months [1].', citations: [{ documentId, title: 'kettle.md' }] });
    const system = systemText(ai().chats[1]!);
    expect(system).to.contain('[1] kettle.md › Kettle manual › Warranty').and.contain(WARRANTY).and.contain('say that you do not know');
    const transcript = await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey);
    expect(transcript.messages.at(-1).citations).to.deep.equal([{ documentId, title: 'kettle.md' }]);
    expect(transcript.messages[0].citations).to.deep.equal([]);
    // The AI call the history shows names the passages by chunk id and score; the document's text is not in it.
    const calls = await recordedActivities(`conversation:${conversation.id}`, ['aiCall']);
    const history = JSON.stringify(calls);
    expect(history).to.not.contain('24 months from the date of purchase');
    const grounded = (calls.at(-1)!.input as { call: { messages: { passages?: { chunkId: string; score: number }[] }[] } }).call.messages.find(
      (m) => m.passages,
    );
    expect(grounded!.passages![0]).to.have.keys(['chunkId', 'score']);
  });

  it('tells the AI to say it does not know when nothing in the knowledge base matches, and cites nothing', async () => {
    ai().script({ content: 'Hi!' }, { content: 'I do not know, sorry.' });
    const conversation = await startConversation(a, agent);
    const turn = await say(a, agent, conversation.id, 'Which football club won the league?');
    expect(turn.messages.at(-1)).to.deep.include({ text: 'I do not know, sorry.', citations: [] });
    expect(systemText(ai().chats[1]!)).to.contain('Nothing in the knowledge base matches this question');
  });

  it('gives TOOLS_AI a search_knowledge tool over its knowledge bases, whose passages reach the model and are cited', async () => {
    const tools = await talkingAgent(a);
    await chain(
      a,
      tools,
      tools.defaultFlowId,
      [{ type: 'TOOLS_AI', data: { instructions: 'Answer questions about the kettle.', knowledgeBaseIds: [kb] } }],
      'start_1',
    );
    await publish(a, tools, tools.defaultFlowId);
    ai().script({ toolCalls: [{ name: 'search_knowledge', arguments: { query: 'warranty length' } }] }, { content: 'Two years [1].' });
    const conversation = await startConversation(a, tools);
    expect(conversation.messages.at(-1)).to.deep.include({ text: 'Two years [1].', citations: [{ documentId, title: 'kettle.md' }] });
    const second = ai().chats[1]!.body.messages as { role: string; content: string }[];
    const toolAnswer = second.find((m) => m.role === 'tool')!.content;
    expect(toolAnswer).to.contain(WARRANTY).and.contain('[1] kettle.md › Kettle manual › Warranty');
    expect(JSON.stringify(ai().chats[0]!.body.tools)).to.contain('search_knowledge');
  });

  it('rewords the question first when the knowledge base has multiQuery on, and grounds the reply in what a rewording found', async () => {
    const question = 'How long am I protected if it breaks?';
    ai().script({ content: 'Hi!' }, { content: 'Nothing.' });
    const conversation = await startConversation(a, agent);
    // Off: the question's words are in no passage.
    await say(a, agent, conversation.id, question);
    expect(ai().chats).to.have.length(2);
    expect(systemText(ai().chats[1]!)).to.contain('Nothing in the knowledge base matches this question');

    await ok('PUT', `/knowledge-bases/${kb}`, a.userKey, { multiQuery: true }, 200);
    try {
      ai().script({ content: JSON.stringify({ queries: ['warranty period', 'manufacturing defects coverage'] }) }, { content: '24 months [1].' });
      const turn = await say(a, agent, conversation.id, question);
      expect(turn.messages.at(-1)).to.deep.include({ text: '24 months [1].', citations: [{ documentId, title: 'kettle.md' }] });
      const [rewrite, reply] = ai().chats;
      expect((rewrite!.body.messages as { content: string }[]).at(-1)!.content).to.equal(question);
      expect(systemText(reply!)).to.contain('[1] kettle.md › Kettle manual › Warranty').and.contain(WARRANTY);
    } finally {
      await ok('PUT', `/knowledge-bases/${kb}`, a.userKey, { multiQuery: false }, 200);
    }
  });

  it("refuses another account's knowledge base in an agent's settings, so it is never retrieved", async () => {
    const b = await newAccount();
    const theirs = await talkingAgent(b);
    await refused('PUT', `${theirs.base}/agent-setting`, b.userKey, 400, { knowledgeBaseIds: [kb] });
  });
});
