/**
 * The operator inbox through the HTTP API on the real worker and Temporal (issue 46): the account's conversations
 * across agents (waiting order, filters, text search, pages, other accounts kept out), claims by two people at once,
 * presence and typing, and unread counts.
 */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { ok, refused, type Account } from './agent-calls.helpers.js';
import { say, startConversation, talkingAgent, type TalkingAgent } from './conversation.helpers.js';
import { colleague, inboxIds, inboxOf, type Colleague } from './inbox.helpers.js';

describe('operator inbox', function () {
  this.timeout(60_000);
  let a: Account;
  let first: TalkingAgent;
  let second: TalkingAgent;
  before(async () => {
    a = await newAccount();
    first = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    second = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hi there' } }]);
  });
  const handOff = (agent: TalkingAgent, id: string) => ok('POST', `${agent.base}/conversations/${id}/handoff`, a.userKey, undefined, 200);

  it('lists the waiting conversations newest wait first, every conversation newest message first, filtered and searched', async () => {
    const c1 = (await startConversation(a, first)).id as string;
    const c2 = (await startConversation(a, second)).id as string;
    const c3 = (await startConversation(a, first)).id as string;
    const active = (await startConversation(a, first)).id as string;
    await handOff(first, c1);
    await handOff(first, c3);
    await handOff(second, c2);
    expect(await inboxIds(a.userKey, '?waiting=true')).to.deep.equal([c2, c3, c1]);
    // A visitor writes in c1: it leads the list by last message, not the waiting one.
    await say(a, first, c1, 'Where is the refund of my INVOICE 100%?');
    expect(await inboxIds(a.userKey)).to.deep.equal([c1, c2, c3, active]);
    expect(await inboxIds(a.userKey, '?waiting=true')).to.deep.equal([c2, c3, c1]);

    expect(await inboxIds(a.userKey, `?agentId=${second.id}`)).to.deep.equal([c2]);
    expect(await inboxIds(a.userKey, '?status=ACTIVE')).to.deep.equal([active]);
    expect(await inboxIds(a.userKey, '?channel=messaging')).to.deep.equal([]);
    expect(await inboxIds(a.userKey, '?q=invoice')).to.deep.equal([c1]);
    expect(await inboxIds(a.userKey, '?q=100%25')).to.deep.equal([c1]);
    expect(await inboxIds(a.userKey, '?q=%25%25')).to.deep.equal([]);
    expect(await inboxIds(a.userKey, '?q=hi%20there')).to.deep.equal([c2]);

    const listed = (await ok('GET', '/conversations?waiting=true&limit=1', a.userKey)).agentry[0];
    expect(listed).to.deep.include({ id: c2, agentId: second.id, channel: 'livechat', status: 'HANDED_OFF', handoffs: 1, claim: null, viewers: [] });
    expect(listed.agentName).to.match(/^Agent /);
    expect(listed.contact).to.deep.equal({ name: null, email: null, externalId: null });
    expect(listed.lastMessage).to.include({ author: 'agent' });
    expect(listed.waitingSince).to.be.a('string');
    const quiet = await inboxOf(a.userKey, first.id, active);
    expect(quiet).to.include({ status: 'ACTIVE', waitingSince: null, unread: 0 });
    expect(quiet.lastMessage).to.include({ author: 'agent', text: 'Hello!' });

    // Keyset pages: two, then the last one.
    const page = await ok('GET', '/conversations?waiting=true&limit=2', a.userKey);
    expect(page.agentry.map((c: { id: string }) => c.id)).to.deep.equal([c2, c3]);
    const next = await ok('GET', `/conversations?waiting=true&limit=2&cursor=${page.nextCursor}`, a.userKey);
    expect(next.agentry.map((c: { id: string }) => c.id)).to.deep.equal([c1]);
    expect(next.nextCursor).to.equal(null);
    const byMessage = await ok('GET', '/conversations?limit=3', a.userKey);
    expect(
      (await ok('GET', `/conversations?limit=3&cursor=${byMessage.nextCursor}`, a.userKey)).agentry.map((c: { id: string }) => c.id),
    ).to.deep.equal([active]);
    // A cursor of the other order, or none at all, names the field; so does a status that waiting=true contradicts.
    expect((await refused('GET', `/conversations?cursor=${page.nextCursor}`, a.userKey, 400)).details.issues[0].path).to.equal('query.cursor');
    expect((await refused('GET', '/conversations?waiting=true&status=ACTIVE', a.userKey, 400)).details.issues[0].path).to.equal('query.status');
    expect((await refused('GET', '/conversations?agentId=nope', a.userKey, 400)).details.issues[0].path).to.equal('query.agentId');
    await refused('GET', '/conversations', a.generalKey, 403);

    // Another account sees none of them, and their ids answer 404.
    const other = await newAccount();
    expect(await inboxIds(other.userKey)).to.deep.equal([]);
    await refused('GET', `${first.base}/conversations/${c1}/inbox`, other.userKey, 404);
    await refused('POST', `${first.base}/conversations/${c1}/claim`, other.userKey, 404, {});
    await refused('PUT', `${first.base}/conversations/${c1}/presence`, other.userKey, 404, { typing: true });
    await refused('PUT', `${first.base}/conversations/${c1}/read`, other.userKey, 404, { messageId: '1' });
  });

  it('two people claim at once: exactly one wins, the other is told who and may take it over; operator messages follow the claim', async () => {
    const ana = { id: a.user.id, email: a.user.email, key: a.userKey };
    const ben: Colleague = await colleague(a, 'ben');
    const id = (await startConversation(a, first)).id as string;
    const path = `${first.base}/conversations/${id}`;

    // Claiming a conversation the agent answers hands it off first: both ask at once, one holds it.
    const both = await Promise.all([ana, ben].map((u) => call('POST', `${path}/claim`, { key: u.key, body: {} })));
    expect(both.map((r) => r.status).sort()).to.deep.equal([200, 409]);
    const winner = both[0]!.status === 200 ? ana : ben;
    const loser = winner === ana ? ben : ana;
    const won = both.find((r) => r.status === 200)!.body;
    expect(won).to.include({ status: 'HANDED_OFF', handoffs: 1 });
    expect(won.claim).to.include({ userId: winner.id, email: winner.email, name: winner.email.split('@')[0] });
    const lost = both.find((r) => r.status === 409)!.body;
    expect(lost.code).to.equal('conversation_claimed');
    expect(lost.message).to.match(
      new RegExp(`^${winner.email.split('@')[0]} \\(${winner.email.replace(/[.]/g, '\\.')}\\) is answering this conversation since \\d{4}-`),
    );

    // The holder claiming again keeps it; the other's message is refused, naming the holder.
    expect((await ok('POST', `${path}/claim`, winner.key, {}, 200)).claim.userId).to.equal(winner.id);
    const refusedMessage = await refused('POST', `${path}/operator-messages`, loser.key, 409, { text: 'I can help!' });
    expect(refusedMessage.code).to.equal('conversation_claimed');
    await refused('DELETE', `${path}/claim`, loser.key, 409);
    // takeOver moves it; now the first holder is refused.
    const taken = await ok('POST', `${path}/claim`, loser.key, { takeOver: true }, 200);
    expect(taken.claim.userId).to.equal(loser.id);
    expect(taken.handoffs).to.equal(1);
    expect((await refused('POST', `${path}/operator-messages`, winner.key, 409, { text: 'Me too' })).code).to.equal('conversation_claimed');
    await ok('POST', `${path}/operator-messages`, loser.key, { text: 'Hello, I am here.' });

    // Released, nobody holds it: the next operator message claims it for its writer.
    await ok('DELETE', `${path}/claim`, loser.key, undefined, 204);
    await ok('DELETE', `${path}/claim`, loser.key, undefined, 204);
    expect((await inboxOf(winner.key, first.id, id)).claim).to.equal(null);
    await ok('POST', `${path}/operator-messages`, winner.key, { text: 'Taking it from here.' });
    expect((await inboxOf(loser.key, first.id, id)).claim.userId).to.equal(winner.id);

    // Resume hands it back to the agent and clears the claim; claiming again hands it off again.
    expect((await ok('POST', `${path}/resume`, a.userKey, undefined, 200)).status).to.equal('ACTIVE');
    expect(await inboxOf(loser.key, first.id, id)).to.include({ claim: null, waitingSince: null, status: 'ACTIVE' });
    const again = await ok('POST', `${path}/claim`, loser.key, {}, 200);
    expect(again).to.include({ status: 'HANDED_OFF', handoffs: 2 });
    // Ended: nobody's any more, and claims are refused.
    await ok('POST', `${path}/end`, a.userKey, undefined, 200);
    expect((await inboxOf(loser.key, first.id, id)).claim).to.equal(null);
    expect((await refused('POST', `${path}/claim`, loser.key, 409, {})).code).to.equal('conflict');
    expect((await refused('POST', `${path}/claim`, loser.key, 400, { takeOver: 'yes' })).details.issues[0].path).to.equal('takeOver');
  });

  it('presence and typing show to the other person and are gone after expiry; unread counts follow the read mark', async () => {
    const ben = await colleague(a, 'bea');
    const id = (await startConversation(a, first)).id as string;
    const path = `${first.base}/conversations/${id}`;
    await handOff(first, id);

    await ok('PUT', `${path}/presence`, a.userKey, { typing: false }, 204);
    await ok('PUT', `${path}/presence`, ben.key, { typing: true }, 204);
    const seen = await inboxOf(a.userKey, first.id, id);
    expect(seen.viewers).to.deep.equal(
      [
        { userId: a.user.id, name: a.user.email.split('@')[0], typing: false },
        { userId: ben.id, name: ben.email.split('@')[0], typing: true },
      ].sort((x, y) => x.userId - y.userId),
    );
    await ok('PUT', `${path}/presence`, ben.key, { typing: false }, 204);
    expect((await inboxOf(a.userKey, first.id, id)).viewers.find((v: { userId: number }) => v.userId === ben.id).typing).to.equal(false);
    await ok('DELETE', `${path}/presence`, a.userKey, undefined, 204);
    expect((await inboxOf(ben.key, first.id, id)).viewers.map((v: { userId: number }) => v.userId)).to.deep.equal([ben.id]);
    // Thirty seconds later, as if the console had stopped renewing it: nobody is looking.
    await harness()
      .orm.em.getKnex()
      .raw(`update conversation_viewers set present_until = now() - interval '1 second' where conversation_id = ?`, [id]);
    expect((await inboxOf(ben.key, first.id, id)).viewers).to.deep.equal([]);
    await refused('PUT', `${path}/presence`, ben.key, 400, {});

    // Unread: the visitor's messages after the reader's mark, each reader their own.
    await say(a, first, id, 'one');
    await say(a, first, id, 'two');
    expect((await inboxOf(ben.key, first.id, id)).unread).to.equal(2);
    const lastId = (await inboxOf(ben.key, first.id, id)).lastMessage.id as string;
    await ok('PUT', `${path}/read`, ben.key, { messageId: lastId }, 204);
    expect((await inboxOf(ben.key, first.id, id)).unread).to.equal(0);
    expect((await inboxOf(a.userKey, first.id, id)).unread).to.equal(2);
    await say(a, first, id, 'three');
    expect((await inboxOf(ben.key, first.id, id)).unread).to.equal(1);
    // The mark never moves backwards.
    const transcript = await ok('GET', path, a.userKey);
    await ok('PUT', `${path}/read`, ben.key, { messageId: transcript.messages[0].id }, 204);
    expect((await inboxOf(ben.key, first.id, id)).unread).to.equal(1);
    expect((await ok('GET', `/conversations?agentId=${first.id}&limit=1`, ben.key)).agentry[0]).to.include({ id, unread: 1 });
    // A message of another conversation is not a mark of this one.
    const elsewhere = await startConversation(a, first);
    const error = await refused('PUT', `${path}/read`, ben.key, 400, { messageId: elsewhere.messages[0].id });
    expect(error.details.issues[0]).to.include({ path: 'messageId', code: 'not_found' });
  });
});
