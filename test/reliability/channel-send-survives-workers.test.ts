/**
 * A WhatsApp reply survives the worker that wrote it: a real worker process runs the turn, writes the reply and calls
 * the Send API, and is killed (SIGKILL) while that call is in flight; the local Meta server never takes it (it holds
 * the call, then drops the connection). A new worker process sends the reply (the turn's node activity run again, or
 * the outbox's `channel-out:<conversation>` once the event's hold runs out): the person gets it exactly once.
 * Not covered, because the design cannot prevent it: a send Meta took whose answer the dying worker never recorded is
 * sent again (Meta's Send API takes no idempotency key; docs/agents.md, Replies).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { connectMessagingNumber } from '../../db/channels/numbers-and-pages.service.js';
import { setChannelSettings } from '../../db/channels/network-accounts.service.js';
import { SecretBox } from '../../lib/secret-box.js';
import { FakeMetaServer, deliver, whatsAppMessage } from '../setup/fake-meta-server.js';
import { TEST_SETTINGS_KEY } from '../setup/harness.js';
import { call } from '../setup/http.js';
import { quiet, undispatchedEvents } from '../setup/quiet.js';
import { eventually } from '../setup/runs.js';
import { killWorker, newRig, startWorker, type Rig, type WorkerProcess } from './processes.js';

const QUESTION = 'what are your opening hours';
const REPLY = 'We are open from 9 to 5, Monday to Friday.';

describe('WhatsApp replies survive worker crashes (real worker processes)', function () {
  this.timeout(120_000);
  const meta = new FakeMetaServer();
  // The worker opens the number's sealed access token with the key the settings were sealed with.
  const workerEnv = { SETTINGS_ENCRYPTION_KEY: TEST_SETTINGS_KEY };
  let rig: Rig;
  let worker: WorkerProcess | undefined;

  before(async () => {
    rig = await newRig();
    await meta.start();
  });
  after(async () => {
    await rig.close(worker);
    await meta.stop();
  });

  const v1 = (method: string, path: string, body?: unknown) => call(method, path, { key: rig.key, baseUrl: `${rig.api.origin}/public/v1`, body });
  async function created(method: string, path: string, body?: unknown) {
    const res = await v1(method, path, body);
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.within(200, 201);
    return res.body;
  }
  async function chain(base: string, flowId: number, nodes: object[]) {
    let previous: string | undefined;
    for (const node of nodes) {
      const nodeId = (await created('POST', `${base}/flows/${flowId}/nodes`, node)).nodes.at(-1).nodeId;
      if (previous) await created('POST', `${base}/flows/${flowId}/edges`, { source: previous, handle: 'default', targetEdge: nodeId });
      previous = nodeId;
    }
    await created('POST', `${base}/flows/${flowId}/publish`);
  }

  /** An agent answering QUESTION with REPLY (an intent flow, no AI call), on a WhatsApp number sending through `meta`. */
  async function whatsAppAgent() {
    const agent = await created('POST', '/agents', { name: 'Open hours' });
    const base = `/agents/${agent.id}`;
    await created('POST', `${base}/flows/${agent.defaultFlowId}/publish`);
    const hours = await created('POST', `${base}/intents`, { name: 'opening hours', trainingPhrases: [QUESTION, 'when are you open'] });
    const flow = await created('POST', `${base}/flows`, { name: 'Hours' });
    await chain(base, flow.id, [
      { type: 'TRIGGER_INTENT', data: { intentIds: [hours.id] } },
      { type: 'SAY_AI', data: { message: REPLY } },
    ]);
    await created('PUT', `${base}/deployment-status`, { isOffline: false });
    await created('PUT', `${base}/settings/messaging`, { enabled: true });
    const em = rig.plant.orm.em.fork();
    const accountId = (await em.getKnex().raw('select id from accounts limit 1')).rows[0].id as number;
    const networkId = String(100_000_000_000_000 + Math.floor(Math.random() * 1e12));
    await connectMessagingNumber(em, accountId, { phoneNumber: `+1555${networkId.slice(-7)}`, phoneNumberId: networkId, assistantId: agent.id });
    const appSecret = randomBytes(16).toString('hex');
    const accessToken = `EAAG${randomBytes(8).toString('hex')}`;
    await setChannelSettings(em, SecretBox.fromKey(TEST_SETTINGS_KEY), accountId, 'messaging', networkId, {
      agentId: agent.id,
      verifyToken: `verify-${randomBytes(4).toString('hex')}`,
      appSecret,
      accessToken,
      baseUrl: meta.baseUrl,
    });
    return { base, accountId, networkId, appSecret, accessToken };
  }

  it('a worker killed between the turn and the send: a new worker sends the reply to the person exactly once, recorded as sent', async () => {
    const agent = await whatsAppAgent();
    const from = `4477${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
    meta.holdNext = 1;
    worker = await startWorker(rig.plant, undefined, workerEnv);

    const delivered = await deliver(
      rig.api.origin,
      'messaging',
      whatsAppMessage(agent.networkId, from, `wamid.in.${randomBytes(6).toString('hex')}`, { text: QUESTION }),
      agent.appSecret,
    );
    expect(delivered.status, await delivered.clone().text()).to.equal(200);
    // The turn ran and its node is sending the reply: the call waits at Meta's door, unanswered.
    await eventually(async () => (meta.held.length ? true : undefined), "the reply's send call", 30_000);
    expect(meta.held[0]!.body).to.deep.include({ messaging_product: 'whatsapp', to: from, type: 'text' });
    const [conversation] = (await created('GET', `${agent.base}/conversations?channel=messaging`)).agentry;
    const transcript = () => created('GET', `${agent.base}/conversations/${conversation.id}`);
    const before = await transcript();
    expect(before.messages.map((m: any) => [m.author, m.text, m.delivery?.status ?? null])).to.deep.equal([
      ['user', QUESTION, null],
      ['agent', REPLY, 'pending'],
    ]);

    await killWorker(worker);
    worker = undefined;
    meta.held[0]!.res.destroy(); // Meta never took it: the connection of the dead worker is dropped.
    expect(meta.sent).to.have.length(0);
    worker = await startWorker(rig.plant, undefined, workerEnv);

    const [reply] = await meta.waitFor(from, 1, 60_000);
    expect(reply!.networkId).to.equal(agent.networkId);
    expect(reply!.authorization).to.equal(`Bearer ${agent.accessToken}`);
    expect(reply!.body).to.deep.include({ messaging_product: 'whatsapp', to: from, type: 'text' });
    expect(FakeMetaServer.textOf(reply!)).to.equal(REPLY);
    // Nothing else goes out once every event is dispatched (the held CHANNEL_DELIVERY event included): one call, one row.
    const settled = await quiet(
      async () => ({
        sent: meta.sentTo(from).map((c) => c.id),
        messages: (await transcript()).messages.map((m: any) => [m.author, m.text, m.delivery ?? null]),
      }),
      { busy: [undispatchedEvents(agent.accountId, rig.plant.orm.em.getKnex())], settleMs: 2_000, timeoutMs: 50_000, what: 'the reply' },
    );
    expect(settled.sent).to.deep.equal([reply!.id]);
    expect(settled.messages).to.deep.equal([
      ['user', QUESTION, null],
      ['agent', REPLY, { status: 'sent', error: null, externalId: reply!.id }],
    ]);
    expect(meta.held).to.have.length(1);
  });
});
