/**
 * The widget API through HTTP as a browser page uses it, on the real worker and Temporal: sessions scoped by signed
 * tokens, the conversation runtime on the livechat channel (transcripts, metadata, analytics), resuming, offline
 * answers, allowed origins and CORS, rate limits, message bounds, identity verification, and account isolation.
 */
import { expect } from 'chai';
import { harness, listen, TEST_SETTINGS_KEY } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { SecretBox } from '../../../lib/secret-box.js';
import { signSessionToken } from '../../../lib/widget/session-token.js';
import { ok, refused, type Account } from '../agents/agent-calls.helpers.js';
import { talkingAgent } from '../agents/conversation.helpers.js';
import { conversationPath, limitedApi, rotateSecret, sessionsPath, shopAgent, userHash, widgetCall } from './widget.helpers.js';

const SITE = 'https://shop.example';

describe('livechat widget API', function () {
  this.timeout(60_000);
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  it('starts a session with the greeting, answers messages through the intent flow, and records them as livechat with page URL and user agent', async () => {
    const agent = await shopAgent(a);
    const session = await widgetCall('POST', sessionsPath(agent.id), { origin: SITE, body: { pageUrl: `${SITE}/cart` } });
    expect(session.status, JSON.stringify(session.body)).to.equal(201);
    expect(session.body).to.include({ status: 'online', resumed: false, feedback: false });
    expect(session.body.theme.title).to.equal('Assistant');
    expect(session.body.messages.map((m: { text: string }) => m.text)).to.deep.equal(['Welcome to the shop!']);
    const { token, conversationId } = session.body;
    expect(session.headers.get('access-control-allow-origin')).to.equal(SITE);

    const turn = await widgetCall('POST', conversationPath(agent.id, conversationId, '/messages'), {
      origin: SITE,
      token,
      body: { text: 'Where is my order?', pageUrl: `${SITE}/orders` },
    });
    expect(turn.status, JSON.stringify(turn.body)).to.equal(200);
    expect(turn.body.messages.map((m: { text: string }) => m.text)).to.deep.equal(['Your order is on its way.']);

    const transcript = await ok('GET', `${agent.base}/conversations/${conversationId}`, a.userKey);
    expect(transcript.channel).to.equal('livechat');
    const user = transcript.messages.find((m: { author: string }) => m.author === 'user');
    expect(user.metadata).to.deep.equal({ pageUrl: `${SITE}/orders`, userAgent: 'WidgetTest/1.0' });
    expect(JSON.stringify(transcript)).to.not.include('127.0.0.1');
    const analytics = await ok('GET', `${agent.base}/analytics`, a.generalKey);
    const livechat = analytics.byChannel.find((c: { channel: string }) => c.channel === 'livechat');
    expect(livechat.conversations).to.be.at.least(1);

    // Resuming (a reload): the same conversation and its transcript, with a fresh token.
    const again = await widgetCall('POST', sessionsPath(agent.id), { origin: SITE, body: { resume: token } });
    expect(again.status).to.equal(201);
    expect(again.body).to.include({ conversationId, resumed: true });
    expect(again.body.messages.map((m: { text: string }) => m.text)).to.deep.equal([
      'Welcome to the shop!',
      'Where is my order?',
      'Your order is on its way.',
    ]);
    const read = await widgetCall('GET', conversationPath(agent.id, conversationId), { origin: SITE, token: again.body.token });
    expect(read.body).to.include({ conversationId, status: 'ACTIVE' });

    // The stream replays the transcript after a message id, then ends once the conversation has ended.
    const ended = await widgetCall('POST', conversationPath(agent.id, conversationId, '/end'), { token });
    expect(ended.body).to.include({ status: 'ENDED', endReason: 'USER' });
    const stream = await widgetCall('GET', conversationPath(agent.id, conversationId, `/stream?after=${again.body.messages[0].id}`), { token });
    expect(stream.headers.get('content-type')).to.match(/text\/event-stream/);
    expect(stream.body).to.include('Your order is on its way.').and.include('event: end').and.not.include('Welcome to the shop!');
    const after = await widgetCall('POST', sessionsPath(agent.id), { origin: SITE, body: { resume: token } });
    expect(after.body.resumed, 'an ended conversation is not resumed').to.equal(false);
    expect(after.body.conversationId).to.not.equal(conversationId);
  });

  it('scopes a token to its agent and conversation: another conversation, agent or account, a forged or expired token is 401', async () => {
    const agent = await shopAgent(a);
    const other = await shopAgent(a);
    const first = (await widgetCall('POST', sessionsPath(agent.id), {})).body;
    const second = (await widgetCall('POST', sessionsPath(agent.id), {})).body;
    const message = { text: 'where is my order' };
    const b = await newAccount();
    const foreign = (await widgetCall('POST', sessionsPath((await shopAgent(b)).id), {})).body;
    for (const [agentId, conversationId, token] of [
      [agent.id, second.conversationId, first.token],
      [other.id, first.conversationId, first.token],
      [agent.id, first.conversationId, foreign.token],
      [agent.id, first.conversationId, `${first.token.slice(0, -2)}xx`],
      [agent.id, first.conversationId, undefined],
    ]) {
      const res = await widgetCall('POST', conversationPath(agentId, conversationId, '/messages'), { token, body: message });
      expect(res.status, `${agentId} ${conversationId}`).to.equal(401);
      expect(res.body.code).to.equal('unauthorized');
    }
    const key = (await harness().orm.em.getKnex().raw('select widget_session_key from agents where id = ?', [agent.id])).rows[0].widget_session_key;
    const expired = signSessionToken(key, { a: agent.id, c: first.conversationId, e: Math.floor(Date.now() / 1000) - 10 });
    expect((await widgetCall('GET', conversationPath(agent.id, first.conversationId), { token: expired })).status).to.equal(401);
    const renewed = await widgetCall('POST', sessionsPath(agent.id), { body: { resume: expired } });
    expect(renewed.body).to.include({ conversationId: first.conversationId, resumed: true });
    // Another account's key sees nothing of these conversations either.
    await refused('GET', `/agents/${agent.id}/conversations/${first.conversationId}`, b.userKey, 404);
  });

  it("answers 'offline' with the theme's text while the agent is offline or livechat is off", async () => {
    const agent = await shopAgent(a);
    await ok('PUT', `${agent.base}/theme`, a.userKey, { offlineMessage: 'Back at nine.' }, 200);
    await ok('PUT', `${agent.base}/settings/livechat`, a.userKey, { enabled: false }, 200);
    const off = await widgetCall('POST', sessionsPath(agent.id), { body: {} });
    expect(off.status).to.equal(200);
    expect(off.body).to.include({ status: 'offline', message: 'Back at nine.' });
    expect((await widgetCall('GET', `/widget/v1/agents/${agent.id}/config`)).body.status).to.equal('offline');
    await ok('PUT', `${agent.base}/settings/livechat`, a.userKey, { enabled: true }, 200);
    await ok('PUT', `${agent.base}/deployment-status`, a.userKey, { isOffline: true }, 200);
    expect((await widgetCall('POST', sessionsPath(agent.id), { body: {} })).body.status).to.equal('offline');
    expect((await widgetCall('POST', sessionsPath('00000000-0000-4000-8000-000000000000'), { body: {} })).status).to.equal(404);
  });

  it('serves only the allowed origins: 403 from another page, CORS answers for the allowed ones only', async () => {
    const agent = await shopAgent(a);
    await ok('PUT', `${agent.base}/settings/livechat`, a.userKey, { allowedOrigins: [SITE] }, 200);
    const refusedSession = await widgetCall('POST', sessionsPath(agent.id), { origin: 'https://evil.example', body: {} });
    expect(refusedSession.status).to.equal(403);
    expect(refusedSession.body.code).to.equal('forbidden');
    expect(refusedSession.headers.get('access-control-allow-origin')).to.equal(null);
    expect((await widgetCall('POST', sessionsPath(agent.id), { body: {} })).status, 'no Origin').to.equal(403);
    expect((await widgetCall('POST', sessionsPath(agent.id), { origin: harness().origin, body: {} })).status, 'the full-page chat').to.equal(201);
    const allowed = await widgetCall('POST', sessionsPath(agent.id), { origin: SITE, body: {} });
    expect(allowed.status).to.equal(201);

    const preflight = (origin: string) =>
      widgetCall('OPTIONS', sessionsPath(agent.id), {
        origin,
        headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const good = await preflight(SITE);
    expect(good.status).to.equal(204);
    expect(good.headers.get('access-control-allow-origin')).to.equal(SITE);
    expect(good.headers.get('access-control-allow-headers')).to.match(/authorization/i);
    const bad = await preflight('https://evil.example');
    expect(bad.headers.get('access-control-allow-origin')).to.equal(null);
    const script = await widgetCall('GET', '/widget/v1/widget.js', { origin: 'https://evil.example' });
    expect(script.headers.get('access-control-allow-origin'), 'the script is for every site').to.equal('https://evil.example');
  });

  it('limits session starts per address and messages per session with 429 and Retry-After, bounds messages, never answers 500', async () => {
    const agent = await shopAgent(a);
    const limited = await limitedApi({ perAddress: { perSecond: 0.01, burst: 4 }, perSession: { perSecond: 0.01, burst: 2 } });
    try {
      const api = limited.origin;
      const { token, conversationId } = (await widgetCall('POST', sessionsPath(agent.id), { api, body: {} })).body;
      const send = () =>
        widgetCall('POST', conversationPath(agent.id, conversationId, '/messages'), { api, token, body: { text: 'where is my order' } });
      const statuses = [(await send()).status, (await send()).status];
      const third = await send();
      expect(statuses).to.deep.equal([200, 200]);
      expect(third.status).to.equal(429);
      expect(third.body.code).to.equal('rate_limited');
      expect(Number(third.headers.get('retry-after'))).to.be.at.least(1);
      const starts = await Promise.all([1, 2, 3].map(() => widgetCall('POST', sessionsPath(agent.id), { api, body: {} })));
      const over = starts.find((s) => s.status === 429);
      expect(over, JSON.stringify(starts.map((s) => s.status))).to.not.equal(undefined);
      expect(Number(over!.headers.get('retry-after'))).to.be.at.least(1);
    } finally {
      limited.server.close();
    }

    const { token, conversationId } = (await widgetCall('POST', sessionsPath(agent.id), { body: {} })).body;
    const messages = conversationPath(agent.id, conversationId, '/messages');
    for (const body of [{ text: 'x'.repeat(4001) }, { text: '   ' }, { text: 42 }, {}, { text: 'hi', extra: 1 }]) {
      expect((await widgetCall('POST', messages, { token, body })).status, JSON.stringify(body).slice(0, 40)).to.equal(400);
    }
    expect((await widgetCall('POST', messages, { token, body: { text: 'y'.repeat(4000) } })).status).to.equal(200);
    const hostile = [
      () => widgetCall('POST', messages, { token, raw: '{"text": ' }),
      () => widgetCall('POST', messages, { token, raw: 'null' }),
      () => widgetCall('POST', sessionsPath('not-a-uuid'), { body: {} }),
      () => widgetCall('POST', sessionsPath(agent.id), { body: { userId: 'u\u0000' } }),
      () => widgetCall('GET', conversationPath(agent.id, 'x'.repeat(300)), { token }),
      () => widgetCall('GET', conversationPath(agent.id, conversationId, '/stream?after=abc'), { token }),
      () => widgetCall('POST', conversationPath(agent.id, conversationId, '/feedback'), { token, body: { rating: 9 } }),
    ];
    for (const request of hostile) expect((await request()).status).to.be.within(400, 499);
    // A resume token that is no token starts a new conversation instead.
    for (const resume of ['a.b', '%%%.%%%', 'x'.repeat(2000)]) {
      const fresh = await widgetCall('POST', sessionsPath(agent.id), { body: { resume } });
      expect(fresh.body).to.include({ status: 'online', resumed: false });
    }
  });

  it('identifies visitors by userHash: contact_name and contact_email filled, another device resumes, a wrong hash is 401', async () => {
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello {contact_name} <{contact_email}>' } }]);
    const unsealed = await listen({ secrets: null });
    try {
      const res = await fetch(`${unsealed.origin}/public/v1/agents/${agent.id}/identity-secret/rotate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.userKey}` },
      });
      expect(res.status, 'no SETTINGS_ENCRYPTION_KEY on the API').to.equal(409);
    } finally {
      unsealed.server.close();
    }
    const noSecret = await widgetCall('POST', sessionsPath(agent.id), { body: { userId: 'u-1', userHash: 'a'.repeat(64) } });
    expect(noSecret.status).to.equal(409);
    await refused('POST', `/agents/${agent.id}/identity-secret/rotate`, a.generalKey, 403);
    const secret = await rotateSecret(a, agent.id);
    expect(secret).to.match(/^[0-9a-f]{64}$/);
    const sealed = (await harness().orm.em.getKnex().raw('select identity_secret_sealed from agents where id = ?', [agent.id])).rows[0]
      .identity_secret_sealed;
    expect(sealed).to.not.include(secret);
    expect(SecretBox.fromKey(TEST_SETTINGS_KEY)!.open(sealed)).to.equal(secret);

    const who = { userId: 'customer-42', name: 'Ada', email: 'ada@example.com' };
    const laptop = await widgetCall('POST', sessionsPath(agent.id), { body: { ...who, userHash: userHash(secret, who.userId) } });
    expect(laptop.status, JSON.stringify(laptop.body)).to.equal(201);
    expect(laptop.body.messages[0].text).to.equal('Hello Ada <ada@example.com>');
    expect(laptop.body.visitor).to.deep.equal({ userId: 'customer-42', name: 'Ada' });
    const phone = await widgetCall('POST', sessionsPath(agent.id), {
      body: { userId: who.userId, userHash: userHash(secret, who.userId).toUpperCase() },
    });
    expect(phone.body).to.include({ conversationId: laptop.body.conversationId, resumed: true });

    const wrong = await widgetCall('POST', sessionsPath(agent.id), { body: { ...who, userHash: userHash('not the secret', who.userId) } });
    expect(wrong.status).to.equal(401);
    expect((await widgetCall('POST', sessionsPath(agent.id), { body: { userId: who.userId } })).status).to.equal(401);
    expect((await widgetCall('POST', sessionsPath(agent.id), { body: { name: 'Eve' } })).status).to.equal(400);
    // Someone else's resume token does not carry them into another visitor's conversation.
    const stranger = await widgetCall('POST', sessionsPath(agent.id), { body: { resume: laptop.body.token } });
    expect(stranger.body.conversationId).to.not.equal(laptop.body.conversationId);

    await rotateSecret(a, agent.id);
    expect(
      (await widgetCall('POST', sessionsPath(agent.id), { body: { ...who, userHash: userHash(secret, who.userId) } })).status,
      'the old secret',
    ).to.equal(401);
  });

  it('runs concurrent visitors of one agent in their own conversations', async () => {
    const agent = await shopAgent(a);
    const visitors = await Promise.all(Array.from({ length: 8 }, () => widgetCall('POST', sessionsPath(agent.id), { body: {} })));
    const ids = new Set(visitors.map((v) => v.body.conversationId));
    expect(ids.size).to.equal(8);
    const turns = await Promise.all(
      visitors.map((v) =>
        widgetCall('POST', conversationPath(agent.id, v.body.conversationId, '/messages'), { token: v.body.token, body: { text: 'track my order' } }),
      ),
    );
    turns.forEach((turn, i) => {
      expect(turn.status).to.equal(200);
      expect(turn.body.conversationId).to.equal(visitors[i]!.body.conversationId);
      expect(turn.body.messages[0].text).to.equal('Your order is on its way.');
    });
  });
});
