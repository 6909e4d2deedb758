/**
 * The operator inbox live (issue 46), through the HTTP API on the real worker and Temporal: the account's inbox
 * stream, woken by PostgreSQL notices on any API process, delivers a conversation newly waiting for a person and a
 * visitor's new message within a second, claims and presence as they change, nothing of other accounts, and a resync
 * after its listener was cut; CONVERSATION_HANDED_OFF runs an automation once per handoff with the console's link.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import { harness, listen, TEST_PUBLIC_BASE_URL } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { eventually, ledgerRuns } from '../../setup/runs.js';
import { activeChain, newTable, rowsOf } from '../active-automations.helpers.js';
import { createHandoffActivities } from '../../../activities/handoff.activity.js';
import { ok, type Account } from './agent-calls.helpers.js';
import { say, startConversation, talkingAgent, type TalkingAgent } from './conversation.helpers.js';
import { colleague } from './inbox.helpers.js';

interface InboxEvent {
  event: string;
  data: any;
  /** When it arrived (performance.now()). */
  at: number;
}

/** The inbox stream of the key's user on the API at `origin`, parsed as it comes. */
async function openInbox(origin: string, key: string) {
  const controller = new AbortController();
  const response = await fetch(`${origin}/public/v1/inbox/stream`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
  expect(response.status).to.equal(200);
  expect(response.headers.get('content-type')).to.match(/text\/event-stream/);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: InboxEvent[] = [];
  let buffer = '';
  let reading: Promise<void> | undefined;
  let consumed = 0;
  const more = async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error('the inbox stream ended');
    buffer += decoder.decode(value, { stream: true });
    const at = performance.now();
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event) events.push({ event, data: data ? JSON.parse(data) : null, at });
    }
  };
  return {
    events,
    /**
     * The first event that `matches` after the one the call before found (or from index `from`), waiting for it at
     * most `timeoutMs`: each call looks only at what came after what the test saw last.
     */
    async until(matches: (e: InboxEvent) => boolean, from = consumed, timeoutMs = 10_000): Promise<InboxEvent> {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const index = events.findIndex((e, i) => i >= from && matches(e));
        const found = events[index];
        if (found) {
          consumed = index + 1;
          return found;
        }
        if (performance.now() > deadline) throw new Error(`no matching inbox event in ${timeoutMs} ms: ${JSON.stringify(events)}`);
        reading ??= more().finally(() => (reading = undefined));
        await Promise.race([reading, new Promise((resolve) => setTimeout(resolve, 100))]);
      }
    },
    close: () => controller.abort(),
  };
}

const about =
  (id: string, check: (c: any) => boolean = () => true) =>
  (e: InboxEvent) =>
    e.event === 'conversation' && e.data.id === id && check(e.data);

describe('operator inbox live', function () {
  this.timeout(60_000);
  let a: Account;
  let agent: TalkingAgent;
  let second: { server: Server; origin: string };
  before(async () => {
    a = await newAccount();
    agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    await ok('PUT', `${agent.base}/agent-setting`, a.userKey, { systemToolSettings: { handoffToHuman: true } }, 200);
    // Another API process: its own feed and LISTEN connection, woken by what the first one writes.
    second = await listen();
  });
  after(() => second.server.close());

  it('delivers a conversation newly waiting and a visitor message within a second, claims and presence, and no other account', async () => {
    const inbox = await openInbox(second.origin, a.userKey);
    await inbox.until((e) => e.event === 'resync');
    const ben = await colleague(a, 'bo');
    const other = await newAccount();
    const theirs = await talkingAgent(other, [{ type: 'SAY_AI', data: { message: 'Not yours' } }]);
    const foreign = (await startConversation(other, theirs)).id as string;

    const conversation = await startConversation(a, agent);
    const id = conversation.id as string;
    await inbox.until(about(id, (c) => c.status === 'ACTIVE' && c.lastMessage?.text === 'Hello!'));

    // The AI hands it off: the stream shows it waiting.
    harness().ai.script({ toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'refund' } }] }, { content: 'One moment.' });
    await say(a, agent, id, 'I want a person');
    const answered = performance.now();
    const waiting = await inbox.until(about(id, (c) => c.status === 'HANDED_OFF' && c.waitingSince !== null));
    expect(waiting.at - answered, 'ms from the handoff to the stream').to.be.below(1_000);
    expect(waiting.data).to.include({ handoffs: 1, agentId: agent.id });

    // A visitor message while waiting.
    const sent = performance.now();
    await say(a, agent, id, 'Hello? Anyone there?');
    const message = await inbox.until(about(id, (c) => c.lastMessage?.text === 'Hello? Anyone there?'));
    expect(message.at - sent, 'ms from the message to the stream').to.be.below(1_000);
    expect(message.data.unread).to.equal(2);

    // A colleague claims it and types: the stream shows who.
    await ok('POST', `${agent.base}/conversations/${id}/claim`, ben.key, {}, 200);
    await inbox.until(about(id, (c) => c.claim?.userId === ben.id));
    await ok('PUT', `${agent.base}/conversations/${id}/presence`, ben.key, { typing: true }, 204);
    await inbox.until(about(id, (c) => c.viewers.some((v: { userId: number; typing: boolean }) => v.userId === ben.id && v.typing)));
    await ok('DELETE', `${agent.base}/conversations/${id}/presence`, ben.key, undefined, 204);
    await inbox.until(about(id, (c) => c.claim?.userId === ben.id && c.viewers.length === 0));
    // A presence lapses without a write: the stream reads the conversation again when it does (here 29 s on, as if the
    // console had stopped renewing it, and the stream told so by a notice).
    const knex = harness().orm.em.getKnex();
    await ok('PUT', `${agent.base}/conversations/${id}/presence`, ben.key, { typing: false }, 204);
    await inbox.until(about(id, (c) => c.viewers.some((v: { userId: number }) => v.userId === ben.id)));
    await knex.raw(`update conversation_viewers set present_until = now() + interval '1 second' where conversation_id = ? and user_id = ?`, [
      id,
      ben.id,
    ]);
    await knex.raw(`select pg_notify('agentry_inbox', ?)`, [`${a.account.id}:${id}`]);
    const stillThere = await inbox.until(about(id, (c) => c.viewers.length === 1));
    const gone = await inbox.until(about(id, (c) => c.viewers.length === 0));
    expect(gone.at - stillThere.at, 'ms until the presence lapsed').to.be.within(500, 2_000);
    // The caller's own read mark moves their unread count.
    await ok('PUT', `${agent.base}/conversations/${id}/read`, a.userKey, { messageId: message.data.lastMessage.id }, 204);
    await inbox.until(about(id, (c) => c.unread === 0));

    // Another account's conversation, written all along, never showed.
    await ok('POST', `${theirs.base}/conversations/${foreign}/handoff`, other.userKey, undefined, 200);
    await ok('POST', `${agent.base}/conversations/${id}/claim`, a.userKey, { takeOver: true }, 200);
    await inbox.until(about(id, (c) => c.claim?.userId === a.user.id));
    expect(inbox.events.filter((e) => e.event === 'conversation' && e.data.id === foreign)).to.deep.equal([]);

    // The listening connection is cut: once it is back, the stream says to reload.
    const before = inbox.events.length;
    const cut = await knex.raw(`select pg_terminate_backend(pid) from pg_stat_activity where query like 'listen %agentry_inbox%'`);
    expect(cut.rows.length, 'listening connections cut').to.be.at.least(1);
    await inbox.until((e) => e.event === 'resync', before, 15_000);
    inbox.close();
  });

  it('CONVERSATION_HANDED_OFF runs an automation once per handoff, by the AI or an operator, with the console link', async () => {
    const log = await newTable(a.userKey, 'handoff_log', ['What']);
    const automation = await activeChain(a.userKey, 'Tell the team', [
      { type: 'TRIGGER', data: { triggerType: 'CONVERSATION_HANDED_OFF', triggeredByAgentIds: [agent.id] } },
      {
        type: 'DYNAMIC_TABLES',
        data: { action: 'CREATE', tableId: log, rowData: { What: '{trigger_payload.by} {trigger_payload.handoffs} {trigger_payload.consoleUrl}' } },
      },
    ]);
    const id = (await startConversation(a, agent)).id as string;
    const link = `${TEST_PUBLIC_BASE_URL}/console/#/c/${agent.id}/${id}`;
    harness().ai.script({ toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'refund' } }] }, { content: 'One moment.' });
    await say(a, agent, id, 'I want a person');
    // Handed back, then taken over by a person: a second handoff.
    await ok('POST', `${agent.base}/conversations/${id}/resume`, a.userKey, undefined, 200);
    await ok('POST', `${agent.base}/conversations/${id}/claim`, a.userKey, {}, 200);
    // Asking again while it is handed off is no new handoff.
    await ok('POST', `${agent.base}/conversations/${id}/handoff`, a.userKey, undefined, 200);

    const whats = await eventually(async () => {
      const rows = (await rowsOf(a.userKey, 'handoff_log')).map((r) => r.data.What as string).sort();
      return rows.length >= 2 ? rows : undefined;
    }, 'two handoff rows');
    expect(whats).to.deep.equal([`AI 1 ${link}`, `OPERATOR 2 ${link}`]);
    expect(await ledgerRuns(automation.id)).to.have.length(2);

    // The bookkeeping run again (a retried activity) writes no second event.
    const knex = harness().orm.em.getKnex();
    const count = async () =>
      Number(
        (await knex.raw(`select count(*) from outbox_events where type = 'CONVERSATION_HANDED_OFF' and payload->>'conversationId' = ?`, [id])).rows[0]
          .count,
      );
    expect(await count()).to.equal(2);
    const activities = createHandoffActivities(harness().orm, { publicBaseUrl: TEST_PUBLIC_BASE_URL });
    await activities.handOffConversation({
      accountId: a.account.id,
      agentId: agent.id,
      conversationId: id,
      handoff: 2,
      turn: 1,
      temporalRunId: 'r',
      by: 'OPERATOR',
    });
    expect(await count()).to.equal(2);
    const event = (
      await knex.raw(`select payload from outbox_events where type = 'CONVERSATION_HANDED_OFF' and payload->>'conversationId' = ? order by id`, [id])
    ).rows[0].payload;
    expect(event).to.deep.equal({
      agentId: agent.id,
      conversationId: id,
      agentName: event.agentName,
      channel: 'livechat',
      contact: { name: null, email: null, externalId: null },
      by: 'AI',
      handoffs: 1,
      consoleUrl: link,
    });
    expect(event.agentName).to.match(/^Agent /);
  });
});
