/**
 * Voice messages on WhatsApp and Messenger, end to end: the local Meta server serves the media (Cloud API media id →
 * URL → bytes, Bearer checked; an attachment URL), the local AI server transcribes, the transcript enters the intent
 * flow and the reply reaches the local Send API. API, worker, outbox and Temporal are the real ones.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { harness, TEST_SETTINGS_KEY } from '../../setup/harness.js';
import { quiet } from '../../setup/quiet.js';
import { FakeMetaServer, deliver, messagingDelivery, whatsAppMessage } from '../../setup/fake-meta-server.js';
import { createVoiceTranscriber, voiceKey } from '../../../integrations/messaging/voice-transcription.js';
import { parseDelivery } from '../../../lib/channels/meta-protocol.js';
import { SecretBox } from '../../../lib/secret-box.js';
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
/** What the default TRANSCRIPTION model (Whisper) costs per call. */
const WHISPER_CREDITS = 2;
const UNREADABLE = "Sorry, I can't read voice messages yet. Could you write your message as text?";

describe('voice messages on Meta networks, heard through transcription', function () {
  this.timeout(60_000);
  const meta = new FakeMetaServer();
  let whatsApp: ConnectedAgent;
  before(async () => {
    await meta.start();
    whatsApp = await withBalance(await connectedAgent('messaging', meta.baseUrl), 100);
  });
  after(() => meta.stop());

  const origin = () => harness().origin;
  const balanceOf = async (c: ConnectedAgent) =>
    Number((await harness().orm.em.getConnection().execute('select credit_balance from accounts where id = ?', [c.a.account.id]))[0].credit_balance);
  /** Accounts without a balance are unlimited: these tests count what is charged. */
  const withBalance = async (c: ConnectedAgent, balance: number) => {
    await harness().orm.em.getConnection().execute('update accounts set credit_balance = ? where id = ?', [balance, c.a.account.id]);
    return c;
  };
  const transcriptions = () => harness().ai.requests.filter((r) => r.path.endsWith('/audio/transcriptions'));
  /** A voice note the Cloud API holds for the number, under a new media id. */
  const voiceNote = (c: ConnectedAgent, failure: { failWith?: number; failBytes?: boolean } = {}) => {
    const id = `media-${randomBytes(6).toString('hex')}`;
    const bytes = Buffer.from(`OggS fake opus voice note ${id}`);
    meta.media.set(id, { bytes, mimeType: 'audio/ogg; codecs=opus', token: c.accessToken, ...failure });
    return { id, bytes };
  };
  const voiceDelivery = (c: ConnectedAgent, from: string, id: string, mediaId: string) =>
    whatsAppMessage(c.networkId, from, id, { type: 'audio', part: { id: mediaId, mime_type: 'audio/ogg; codecs=opus', voice: true } });

  it('a WhatsApp voice message is downloaded with the number token, transcribed on Whisper, and its transcript routes into the intent flow', async () => {
    const from = person();
    const note = voiceNote(whatsApp);
    harness().ai.script({ text: ` ${HOURS_QUESTION} ` });
    const before = await balanceOf(whatsApp);
    const res = await deliver(origin(), 'messaging', voiceDelivery(whatsApp, from, messageId(), note.id), whatsApp.appSecret);
    expect(res.status, await res.clone().text()).to.equal(200);

    const [reply] = await meta.waitFor(from);
    expect(textOf(reply!)).to.equal(HOURS_REPLY);
    // Media id → URL → bytes, each with the number's access token.
    const calls = meta.mediaCalls.filter((m) => m.path.includes(note.id));
    expect(calls.map((m) => [m.path.replace(/^\/v21\.0\//, 'graph:').split('/')[0], m.authorization, m.status])).to.deep.equal([
      [`graph:${note.id}`, `Bearer ${whatsApp.accessToken}`, 200],
      ['', `Bearer ${whatsApp.accessToken}`, 200],
    ]);
    const [request, ...more] = transcriptions();
    expect(more).to.have.length(0);
    expect(request!.raw)
      .to.contain('name="model"\r\n\r\nwhisper-1')
      .and.to.contain(note.bytes.toString())
      .and.to.match(/filename="[^"]+\.ogg"/);
    expect(await balanceOf(whatsApp)).to.equal(before - WHISPER_CREDITS);

    const [conversation] = (await conversationsOf(whatsApp)).filter((c: any) => c.channel === 'messaging');
    const transcript = await transcriptOf(whatsApp, conversation.id);
    const user = transcript.messages.find((m: any) => m.author === 'user' && m.text === HOURS_QUESTION);
    expect(user, JSON.stringify(transcript.messages)).to.not.equal(undefined);
    expect(user.metadata).to.deep.equal({ voice: true });
  });

  it('a redelivered voice message, and a retried transcription, transcribe and charge once and answer once', async () => {
    const c = await withBalance(await connectedAgent('messaging', meta.baseUrl), 100);
    const from = person();
    const note = voiceNote(c);
    // The provider is unavailable once (the routing activity retries), then transcribes.
    harness().ai.script({ status: 503 }, { text: HOURS_QUESTION }, { text: 'a second transcription must not happen' });
    const before = await balanceOf(c);
    const payload = voiceDelivery(c, from, messageId(), note.id);
    const answers = await Promise.all([1, 2, 3].map(() => deliver(origin(), 'messaging', payload, c.appSecret)));
    expect(answers.map((r) => r.status)).to.deep.equal([200, 200, 200]);
    await meta.waitFor(from);
    expect(await quiet(() => meta.sentTo(from).map(textOf), { what: 'the replies' })).to.deep.equal([HOURS_REPLY]);
    expect(transcriptions()).to.have.length(2); // the 503 and the one that answered
    expect(await balanceOf(c)).to.equal(before - WHISPER_CREDITS);

    // The routing activity run again for the same network message (a retried attempt) answers the recorded transcript.
    const event = parseDelivery('messaging', payload).messages[0]!;
    const connection = (
      await harness().orm.em.getConnection().execute('select id from messaging_numbers where phone_number_id = ?', [c.networkId])
    )[0];
    const inbound = { ...event, accountId: c.a.account.id, channel: 'messaging' as const, connectionId: Number(connection.id) };
    const hear = createVoiceTranscriber({
      orm: harness().orm,
      provider: harness().aiProvider,
      secrets: SecretBox.fromKey(TEST_SETTINGS_KEY),
      messaging: null,
      httpTimeoutMs: 5_000,
    });
    expect(await hear(inbound)).to.deep.equal({ text: HOURS_QUESTION, metadata: { voice: true } });
    expect(transcriptions()).to.have.length(2);
    const recorded = (
      await harness()
        .orm.em.getConnection()
        .execute('select output from node_effects where execution_key = ?', [voiceKey(inbound)])
    )[0];
    expect(recorded.output).to.deep.equal({ text: HOURS_QUESTION, credits: WHISPER_CREDITS });
  });

  for (const failure of [
    { name: 'the media description failing (404)', failWith: 404 },
    { name: 'the media bytes failing (403)', failWith: 403, failBytes: true },
    { name: 'too few credits for the transcription', balance: 1 },
  ]) {
    it(`with ${failure.name}, the person is told the agent cannot read voice messages, and nothing is charged`, async () => {
      const c = await withBalance(await connectedAgent('messaging', meta.baseUrl), 100);
      const from = person();
      if (failure.balance !== undefined) await withBalance(c, failure.balance);
      const note = voiceNote(c, failure);
      harness().ai.script({ text: 'never asked' });
      const before = await balanceOf(c);
      const res = await deliver(origin(), 'messaging', voiceDelivery(c, from, messageId(), note.id), c.appSecret);
      expect(res.status).to.equal(200);
      const [reply] = await meta.waitFor(from);
      expect(textOf(reply!)).to.equal(UNREADABLE);
      expect(transcriptions()).to.have.length(0);
      expect(await balanceOf(c)).to.equal(before);
      if (failure.failWith) expect(meta.mediaCalls.filter((m) => m.path.includes(note.id)).map((m) => m.status)).to.include(failure.failWith);
      const [conversation] = await conversationsOf(c);
      const transcript = await transcriptOf(c, conversation.id);
      expect(transcript.messages.map((m: any) => [m.author, m.text, m.metadata])).to.deep.equal([
        ['user', '[audio]', null],
        ['agent', UNREADABLE, null],
      ]);
    });
  }

  it('a Messenger audio attachment is fetched from its URL and transcribed the same way', async () => {
    const messenger = await connectedAgent('facebook', meta.baseUrl);
    const sender = `psid${randomBytes(4).toString('hex')}`;
    const id = `att-${randomBytes(6).toString('hex')}`;
    meta.media.set(id, { bytes: Buffer.from(`mp4 audio ${id}`), mimeType: 'audio/mp4' });
    harness().ai.script({ text: HOURS_QUESTION });
    const item = {
      sender: { id: sender },
      message: { mid: `m_${randomBytes(6).toString('hex')}`, attachments: [{ type: 'audio', payload: { url: meta.attachmentUrl(id) } }] },
    };
    const res = await deliver(origin(), 'facebook', messagingDelivery('page', messenger.networkId, [item]), messenger.appSecret);
    expect(res.status).to.equal(200);
    const [reply] = await meta.waitFor(sender);
    expect(textOf(reply!)).to.equal(HOURS_REPLY);
    const [call] = meta.mediaCalls.filter((m) => m.path === `/cdn/${id}`);
    expect(call).to.deep.include({ status: 200, authorization: undefined });
    expect(transcriptions()[0]!.raw)
      .to.contain(`mp4 audio ${id}`)
      .and.to.match(/filename="[^"]+\.m4a"/);
  });
});
