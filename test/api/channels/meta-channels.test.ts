/**
 * Agents on WhatsApp, Messenger and Instagram through Meta's protocol, end to end: a local server plays Meta (signed
 * webhook deliveries in, the Send API out), the API, worker, outbox and Temporal are the real ones.
 */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { quiet, undispatchedEvents } from '../../setup/quiet.js';
import { eventually } from '../../setup/runs.js';
import { FakeMetaServer, deliver, messagingDelivery, messagingText, sign, whatsAppMessage, whatsAppStatus } from '../../setup/fake-meta-server.js';
import { admin } from '../../setup/admin-cli.js';
import { newAccount } from '../../setup/http.js';
import { connectMessagingNumber } from '../../../db/channels/numbers-and-pages.service.js';
import { ok } from '../agents/agent-calls.helpers.js';
import { DEFAULT_HANDOFF_MESSAGE } from '../../../activities/handoff.activity.js';
import {
  HOURS_QUESTION,
  HOURS_REPLY,
  connectedAgent,
  conversationsOf,
  messageId,
  person,
  transcriptOf,
  type ConnectedAgent,
} from './channels.helpers.js';

const textOf = FakeMetaServer.textOf;

describe('agents on Meta networks (WhatsApp, Messenger, Instagram)', function () {
  this.timeout(60_000);
  const meta = new FakeMetaServer();
  let whatsApp: ConnectedAgent;
  before(async () => {
    await meta.start();
    whatsApp = await connectedAgent('messaging', meta.baseUrl);
  });
  after(() => meta.stop());

  const origin = () => harness().origin;
  /** A new person asks the WhatsApp agent for its hours; answers who asked and the reply the Send API got. */
  const askHours = async () => {
    const from = person();
    const res = await deliver(
      origin(),
      'messaging',
      whatsAppMessage(whatsApp.networkId, from, messageId(), { text: HOURS_QUESTION }),
      whatsApp.appSecret,
    );
    expect(res.status, await res.clone().text()).to.equal(200);
    const [reply] = await meta.waitFor(from);
    return { from, reply };
  };
  const outboxCount = async () => Number((await harness().orm.em.getKnex().raw('select count(*) as n from outbox_events')).rows[0].n);

  it("answers Meta's verification handshake with hub.challenge for a connected account's verify token, and 403 otherwise", async () => {
    const url = (token: string, mode = 'subscribe') =>
      `${origin()}/channels/v1/messaging/webhook?hub.mode=${mode}&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=1158201444`;
    const good = await fetch(url(whatsApp.verifyToken));
    expect(good.status).to.equal(200);
    expect(good.headers.get('content-type')).to.match(/^text\/plain/);
    expect(await good.text()).to.equal('1158201444');
    expect((await fetch(url('not-the-token'))).status).to.equal(403);
    expect((await fetch(url(whatsApp.verifyToken, 'unsubscribe'))).status).to.equal(403);
    // The token of a number is not the token of the channel's pages.
    expect((await fetch(url(whatsApp.verifyToken).replace('/messaging/', '/facebook/'))).status).to.equal(403);
  });

  it('a WhatsApp message enters the intent flow and the reply reaches the person through the Cloud API, recorded as sent', async () => {
    const { from, reply } = await askHours();
    expect(reply!.networkId).to.equal(whatsApp.networkId);
    expect(reply!.authorization).to.equal(`Bearer ${whatsApp.accessToken}`);
    expect(reply!.body).to.deep.include({ messaging_product: 'whatsapp', to: from, type: 'text' });
    expect(textOf(reply!)).to.equal(HOURS_REPLY);

    const [conversation] = (await conversationsOf(whatsApp)).filter((c) => c.channel === 'messaging');
    const transcript = await eventually(async () => {
      const t = await transcriptOf(whatsApp, conversation.id);
      return t.messages.at(-1)?.delivery?.status === 'sent' ? t : undefined;
    }, 'the reply recorded as sent');
    expect(transcript.messages.map((m: any) => [m.author, m.text])).to.deep.equal([
      ['user', HOURS_QUESTION],
      ['agent', HOURS_REPLY],
    ]);
    expect(transcript.messages[1].delivery).to.deep.equal({ status: 'sent', error: null, externalId: reply!.id });

    // The network's statuses move it forward, never back.
    for (const status of ['delivered', 'read', 'delivered']) {
      const r = await deliver(origin(), 'messaging', whatsAppStatus(whatsApp.networkId, from, reply!.id, status), whatsApp.appSecret);
      expect(r.status).to.equal(200);
    }
    await eventually(async () => ((await transcriptOf(whatsApp, conversation.id)).messages[1].delivery.status === 'read' ? true : undefined), 'read');
    const settled = await quiet(async () => (await transcriptOf(whatsApp, conversation.id)).messages[1].delivery, {
      busy: [undispatchedEvents(whatsApp.a.account.id)],
    });
    expect(settled.status).to.equal('read');
  });

  it("an open stream of the conversation hears its reply's delivery status move, without moving its resume point", async () => {
    const { from, reply } = await askHours();
    // The conversation whose reply the network took, once its send is recorded.
    const conversation = await eventually(async () => {
      for (const c of await conversationsOf(whatsApp)) {
        const messages = (await transcriptOf(whatsApp, c.id)).messages as { delivery?: { externalId: string; status: string } }[];
        if (messages.some((m) => m.delivery?.externalId === reply!.id && m.delivery.status === 'sent')) return c;
      }
      return undefined;
    }, 'the reply recorded as sent');
    const controller = new AbortController();
    const response = await fetch(`${harness().baseUrl}${whatsApp.agent.base}/conversations/${conversation.id}/stream`, {
      headers: { authorization: `Bearer ${whatsApp.a.generalKey}` },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let received = '';
    const until = async (pattern: RegExp) => {
      while (!pattern.test(received)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}: ${received}`);
        received += new TextDecoder().decode(value);
      }
    };
    try {
      await until(/"status":"sent"/);
      for (const status of ['delivered', 'read']) {
        await deliver(origin(), 'messaging', whatsAppStatus(whatsApp.networkId, from, reply!.id, status), whatsApp.appSecret);
        await until(new RegExp(`event: status\ndata: .*"status":"${status}"`));
      }
      const events = received.split('\n\n').filter((e) => /^(id|event):/m.test(e));
      const statuses = events.filter((e) => e.startsWith('event: status')).map((e) => JSON.parse(e.split('data: ')[1]!));
      expect(statuses.map((m) => [m.text, m.delivery.status, m.delivery.externalId])).to.deep.equal([
        [HOURS_REPLY, 'delivered', reply!.id],
        [HOURS_REPLY, 'read', reply!.id],
      ]);
      // Status events carry no id: a reconnecting EventSource still resumes after the newest message.
      expect(events.filter((e) => e.startsWith('id:')).map((e) => /event: (\w+)/.exec(e)![1])).to.deep.equal(['message', 'message']);
    } finally {
      controller.abort();
    }
  });

  it('a redelivered webhook makes one turn and one reply, even when the deliveries arrive at once', async () => {
    const from = person();
    const payload = whatsAppMessage(whatsApp.networkId, from, messageId(), { text: 'when are you open' });
    const answers = await Promise.all([1, 2, 3].map(() => deliver(origin(), 'messaging', payload, whatsApp.appSecret)));
    expect(answers.map((r) => r.status)).to.deep.equal([200, 200, 200]);
    expect(await deliver(origin(), 'messaging', payload, whatsApp.appSecret).then((r) => r.json())).to.deep.equal({ events: 0 });
    await meta.waitFor(from);
    const sent = await quiet(() => meta.sentTo(from).length, { busy: [undispatchedEvents(whatsApp.a.account.id)] });
    expect(sent).to.equal(1);
    const conversations = (await conversationsOf(whatsApp)).filter((c) => c.turns > 0);
    const mine = [];
    for (const c of conversations) {
      const t = await transcriptOf(whatsApp, c.id);
      if (t.messages.some((m: any) => m.text === 'when are you open')) mine.push(t);
    }
    expect(mine).to.have.length(1);
    expect(mine[0].turns).to.equal(1);
    expect(mine[0].messages.map((m: any) => m.author)).to.deep.equal(['user', 'agent']);
  });

  it('a delivery with a wrong or missing signature is refused with 401 and stores nothing', async () => {
    const before = await outboxCount();
    const conversations = (await conversationsOf(whatsApp)).length;
    const payload = whatsAppMessage(whatsApp.networkId, person(), messageId(), { text: HOURS_QUESTION });
    expect((await deliver(origin(), 'messaging', payload, 'another-secret')).status).to.equal(401);
    expect((await deliver(origin(), 'messaging', payload, whatsApp.appSecret, 'sha256=' + '0'.repeat(64))).status).to.equal(401);
    const unsigned = await fetch(`${origin()}/channels/v1/messaging/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    expect(unsigned.status).to.equal(401);
    // The signature covers the bytes: the same JSON, spaced differently, is not what was signed.
    const body = JSON.stringify(payload);
    const { sign } = await import('../../setup/fake-meta-server.js');
    const tampered = await fetch(`${origin()}/channels/v1/messaging/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(whatsApp.appSecret, body) },
      body: JSON.stringify(payload, null, 1),
    });
    expect(tampered.status).to.equal(401);
    expect(await outboxCount()).to.equal(before);
    expect((await conversationsOf(whatsApp)).length).to.equal(conversations);
  });

  it('a 429 of the Send API is retried and the reply is sent once', async () => {
    const from = person();
    meta.failures.push({ status: 429, error: { message: 'Rate limit hit', type: 'OAuthException', code: 130429 } });
    const refusedBefore = meta.refused;
    await deliver(origin(), 'messaging', whatsAppMessage(whatsApp.networkId, from, messageId(), { text: HOURS_QUESTION }), whatsApp.appSecret);
    const [reply] = await meta.waitFor(from);
    expect(textOf(reply!)).to.equal(HOURS_REPLY);
    expect(meta.refused).to.equal(refusedBefore + 1);
    expect(await quiet(() => meta.sentTo(from).length, { busy: [undispatchedEvents(whatsApp.a.account.id)] })).to.equal(1);
  });

  it('a closed 24-hour window fails the reply with a message pointing at template messages', async () => {
    const from = person();
    meta.failures.push({
      status: 400,
      error: {
        message: 'Re-engagement message',
        code: 131047,
        error_data: { details: 'Message failed to send because more than 24 hours have passed' },
      },
    });
    await deliver(origin(), 'messaging', whatsAppMessage(whatsApp.networkId, from, messageId(), { text: HOURS_QUESTION }), whatsApp.appSecret);
    const failed = await eventually(async () => {
      for (const c of await conversationsOf(whatsApp)) {
        const t = await transcriptOf(whatsApp, c.id);
        const reply = t.messages.find((m: any) => m.author === 'agent' && m.delivery?.status === 'failed');
        if (reply && t.messages.length === 2) return reply;
      }
      return undefined;
    }, 'the reply recorded as failed');
    expect(failed.delivery.error)
      .to.match(/24-hour window/)
      .and.match(/131047/)
      .and.match(/template/)
      .and.match(/SEND_MESSAGING_MESSAGE/);
    expect(meta.sentTo(from)).to.have.length(0);
  });

  it('a person takes a WhatsApp conversation over: operator messages reach the person, the agent stays silent until resumed', async () => {
    const own = await connectedAgent('messaging', meta.baseUrl);
    const from = person();
    const write = (text: string) => deliver(origin(), 'messaging', whatsAppMessage(own.networkId, from, messageId(), { text }), own.appSecret);
    expect((await write(HOURS_QUESTION)).status).to.equal(200);
    await meta.waitFor(from, 1);
    const [conversation] = await conversationsOf(own);
    const path = `${own.agent.base}/conversations/${conversation.id}`;
    await ok('POST', `${path}/handoff`, own.a.userKey, undefined, 200);
    await ok('POST', `${path}/operator-messages`, own.a.userKey, { text: 'Hi, this is Sam from Acme.' });
    const [, notice, byOperator] = await meta.waitFor(from, 3);
    expect(textOf(notice!)).to.equal(DEFAULT_HANDOFF_MESSAGE);
    expect(byOperator!.networkId).to.equal(own.networkId);
    expect(byOperator!.body).to.deep.include({ to: from, type: 'text' });
    expect(textOf(byOperator!)).to.equal('Hi, this is Sam from Acme.');

    // While a person has it, the agent does not answer (not even the question its flow knows).
    expect((await write(HOURS_QUESTION)).status).to.equal(200);
    const silent = await quiet(() => meta.sentTo(from).length, { busy: [undispatchedEvents(own.a.account.id)] });
    expect(silent).to.equal(3);
    await ok('POST', `${path}/resume`, own.a.userKey, undefined, 200);
    expect((await write(HOURS_QUESTION)).status).to.equal(200);
    expect(textOf((await meta.waitFor(from, 4))[3]!)).to.equal(HOURS_REPLY);
    const transcript = await eventually(async () => {
      const t = await transcriptOf(own, conversation.id);
      return t.messages.filter((m: any) => m.delivery?.status === 'sent').length === 4 ? t : undefined;
    }, 'four messages recorded as sent');
    expect(transcript.messages.map((m: any) => m.author)).to.deep.equal(['user', 'agent', 'agent', 'operator', 'user', 'user', 'agent']);
  });

  it('a picture is recorded and answered with what the agent cannot read', async () => {
    const from = person();
    await deliver(
      origin(),
      'messaging',
      whatsAppMessage(whatsApp.networkId, from, messageId(), {
        type: 'image',
        part: { id: 'MEDIA_1', mime_type: 'image/jpeg', caption: 'my receipt' },
      }),
      whatsApp.appSecret,
    );
    const [reply] = await meta.waitFor(from);
    expect(textOf(reply!)).to.match(/can't read images/);
    const conversation = (await conversationsOf(whatsApp))[0];
    const transcript = await transcriptOf(whatsApp, conversation.id);
    expect(transcript.messages.map((m: any) => [m.author, m.text])).to.deep.equal([
      ['user', '[image] my receipt'],
      ['agent', reply ? textOf(reply) : ''],
    ]);
  });

  for (const channel of ['facebook', 'instagram'] as const) {
    it(`${channel === 'facebook' ? 'Messenger' : 'Instagram'}: a message is answered through the Graph Send API, delivery and read recorded`, async () => {
      const page = await connectedAgent(channel, meta.baseUrl);
      const object = channel === 'facebook' ? 'page' : 'instagram';
      const sender = person();
      const res = await deliver(
        origin(),
        channel,
        messagingDelivery(object, page.networkId, [messagingText(sender, messageId('m'), HOURS_QUESTION)]),
        page.appSecret,
      );
      expect(res.status).to.equal(200);
      const [reply] = await meta.waitFor(sender);
      expect(reply!.networkId).to.equal(page.networkId);
      expect(reply!.authorization).to.equal(`Bearer ${page.accessToken}`);
      expect(reply!.body).to.deep.include({ recipient: { id: sender }, messaging_type: 'RESPONSE', message: { text: HOURS_REPLY } });
      const [conversation] = await conversationsOf(page);
      await eventually(async () => ((await transcriptOf(page, conversation.id)).messages[1]?.delivery?.status === 'sent' ? true : undefined), 'sent');
      await deliver(
        origin(),
        channel,
        messagingDelivery(object, page.networkId, [{ sender: { id: sender }, delivery: { mids: [reply!.id], watermark: Date.now() } }]),
        page.appSecret,
      );
      await eventually(
        async () => ((await transcriptOf(page, conversation.id)).messages[1].delivery.status === 'delivered' ? true : undefined),
        'delivered',
      );
      await deliver(
        origin(),
        channel,
        messagingDelivery(object, page.networkId, [{ sender: { id: sender }, read: { watermark: Date.now() + 1000 } }]),
        page.appSecret,
      );
      await eventually(async () => ((await transcriptOf(page, conversation.id)).messages[1].delivery.status === 'read' ? true : undefined), 'read');
    });
  }

  it("keeps accounts apart: another account's app secret cannot deliver for this number, and its own number routes to its own agent", async () => {
    const other = await connectedAgent('messaging', meta.baseUrl);
    const before = (await conversationsOf(whatsApp)).length;
    // Account B's app secret signs a delivery that names account A's number: B's secret does not speak for it. On the
    // shared URL the delivery claims A's number, so A's secret is the one checked (401); on B's own URL, B's secret
    // checks out but covers none of the delivery's events.
    const intruder = person();
    const forgedMessage = whatsAppMessage(whatsApp.networkId, intruder, messageId(), { text: HOURS_QUESTION });
    expect((await deliver(origin(), 'messaging', forgedMessage, other.appSecret)).status).to.equal(401);
    const [own] = await harness().orm.em.getKnex()('messaging_numbers').where({ phone_number_id: other.networkId }).select('id');
    const body = JSON.stringify(forgedMessage);
    const forged = await fetch(`${origin()}/channels/v1/messaging/webhook/${own.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(other.appSecret, body) },
      body,
    });
    expect(forged.status).to.equal(200);
    expect(await forged.json()).to.deep.equal({ events: 0 });
    const ownNumber = await deliver(
      origin(),
      'messaging',
      whatsAppMessage(other.networkId, intruder, messageId(), { text: HOURS_QUESTION }),
      other.appSecret,
    );
    expect(await ownNumber.json()).to.deep.equal({ events: 1 });
    const [reply] = await meta.waitFor(intruder);
    expect(reply!.networkId).to.equal(other.networkId);
    expect(reply!.authorization).to.equal(`Bearer ${other.accessToken}`);
    expect((await conversationsOf(other)).length).to.equal(1);
    expect(await quiet(async () => (await conversationsOf(whatsApp)).length, { busy: [undispatchedEvents(whatsApp.a.account.id)] })).to.equal(before);
    expect(meta.sentTo(intruder)).to.have.length(1);
    // B's phone-number id cannot be connected for messages in account A too: one account receives a network id.
    const a = String(whatsApp.a.account.id);
    await connectMessagingNumber(harness().orm.em.fork(), whatsApp.a.account.id, { phoneNumber: '+14155550178', phoneNumberId: other.networkId });
    const copied = await admin(
      'channel-settings',
      '--account',
      a,
      '--channel',
      'messaging',
      '--id',
      other.networkId,
      '--verify-token',
      'x',
      '--app-secret',
      'y',
      '--access-token',
      'z',
    );
    expect(copied.code, copied.stderr).to.equal(1);
    expect(copied.stderr).to.match(/already receives messaging messages in another account/);
  });

  it('channel-settings connects a number from the admin command line, secrets shown only as hints', async () => {
    const a = await newAccount();
    const agent = (await connectedAgent('messaging', meta.baseUrl, { a })).agent;
    const number = await admin(
      'connect-number',
      '--account',
      String(a.account.id),
      '--phone',
      '+14155550177',
      '--phone-number-id',
      '987650001',
      '--json',
    );
    expect(number.code, number.stderr).to.equal(0);
    const result = await admin(
      'channel-settings',
      '--account',
      String(a.account.id),
      '--channel',
      'messaging',
      '--id',
      '987650001',
      '--assistant',
      agent.id,
      '--verify-token',
      'my-verify-token',
      '--app-secret',
      'app-secret-1234567890',
      '--access-token',
      'EAAG-token-abcdef',
      '--json',
    );
    expect(result.code, result.stderr).to.equal(0);
    const { settings } = JSON.parse(result.stdout);
    const connectionId = JSON.parse(number.stdout).number.id;
    expect(settings).to.deep.equal({
      channel: 'messaging',
      networkId: '987650001',
      connectionId,
      webhookPath: `/channels/v1/messaging/webhook/${connectionId}`,
      agentId: agent.id,
      receives: true,
      sendApiUrl: 'https://graph.facebook.com/v21.0',
      appSecretHint: '…7890',
      accessTokenHint: '…cdef',
    });
    expect(result.stdout).to.not.include('app-secret-1234567890');
    for (const path of ['/channels/v1/messaging/webhook', settings.webhookPath]) {
      const handshake = await fetch(`${origin()}${path}?hub.mode=subscribe&hub.verify_token=my-verify-token&hub.challenge=42`);
      expect(await handshake.text(), path).to.equal('42');
    }
    // Its own URL answers only its own token.
    const others = await fetch(`${origin()}${settings.webhookPath}?hub.mode=subscribe&hub.verify_token=${whatsApp.verifyToken}&hub.challenge=42`);
    expect(others.status).to.equal(403);
  });
});
