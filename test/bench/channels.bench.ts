/**
 * Benchmark of agents on the messaging networks (issue 27). Run: `node --import tsx test/bench/channels.bench.ts`
 * (env MESSAGES, default 50; SENDERS, default 200).
 *
 * Embedded Temporal dev server, a fresh database, the API and one worker (runs and turns, with the outbox dispatcher)
 * in processes of their own; a local server playing Meta (signed WhatsApp deliveries in, the Cloud API out) in this
 * one; an agent whose intent flow answers without an AI call (TRIGGER_INTENT → SAY_AI static). It prints:
 *  - inbound delivery to reply received on the local send API, one person writing MESSAGES messages in turn: p50/p95,
 *    and where the time goes (channel-phases.ts: each hop's moment, median from the delivery's post);
 *  - SENDERS people writing at once to one number: every message answered exactly once, replies per second.
 */
import { execSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { benchApi, percentile, startProcess, stopProcesses } from './bench-processes.js';
import { benchPlatform } from './bench-platform.js';
import { FakeMetaServer, deliver, whatsAppMessage } from '../setup/fake-meta-server.js';
import { connectMessagingNumber } from '../../db/channels/numbers-and-pages.service.js';
import { setChannelSettings } from '../../db/channels/network-accounts.service.js';
import { SecretBox } from '../../lib/secret-box.js';
import { phaseReport, type MessageTimes } from './channel-phases.js';

const MESSAGES = Number(process.env.MESSAGES ?? 50);
const SENDERS = Number(process.env.SENDERS ?? 200);
const KEY = 'b2'.repeat(32);
const APP_SECRET = 'bench-app-secret';
const PHONE_NUMBER_ID = '100200300400500';
const REPLY = 'We are open from 9 to 5.';

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const stats = (samples: number[]) => `p50 ${fmt(percentile(samples, 50))}, p95 ${fmt(percentile(samples, 95))}`;

const cleanups: (() => Promise<void> | void)[] = [];
async function cleanUp(): Promise<void> {
  stopProcesses();
  for (const undo of cleanups.reverse()) await Promise.resolve(undo()).catch(() => undefined);
}

/** An online agent answering "when are you open" through an intent flow, its WhatsApp channel on; no greeting. */
async function hoursAgent(api: ReturnType<typeof benchApi>): Promise<string> {
  const agent = await api('POST', '/agents', { name: 'Bench agent' });
  const base = `/agents/${agent.id}`;
  const hours = await api('POST', `${base}/intents`, { name: 'hours', trainingPhrases: ['when are you open', 'what are your opening hours'] });
  const flow = await api('POST', `${base}/flows`, { name: 'Hours' });
  const trigger = (await api('POST', `${base}/flows/${flow.id}/nodes`, { type: 'TRIGGER_INTENT', data: { intentIds: [hours.id] } })).nodes.at(
    -1,
  ).nodeId;
  const say = (await api('POST', `${base}/flows/${flow.id}/nodes`, { type: 'SAY_AI', data: { message: REPLY } })).nodes.at(-1).nodeId;
  await api('POST', `${base}/flows/${flow.id}/edges`, { source: trigger, handle: 'default', targetEdge: say });
  await api('POST', `${base}/flows/${flow.id}/publish`);
  await api('POST', `${base}/flows/${agent.defaultFlowId}/publish`);
  await api('PUT', `${base}/settings/messaging`, { enabled: true });
  await api('PUT', `${base}/deployment-status`, { isOffline: false });
  return agent.id;
}

async function main(): Promise<void> {
  const platform = await benchPlatform();
  cleanups.push(() => platform.close());
  const meta = new FakeMetaServer();
  await meta.start();
  cleanups.push(() => meta.stop());
  const common = { ...platform.processEnv, SETTINGS_ENCRYPTION_KEY: KEY };
  const [[, port]] = await Promise.all([
    startProcess('test/bench/api-process.ts', common, /port (\d+)/),
    startProcess('worker/main.ts', { ...common, LOG_LEVEL: 'INFO', WORKER_QUEUES: 'runs,turns' }, /polling task queue/),
  ]);
  const origin = `http://127.0.0.1:${port}`;
  const api = benchApi(port!, platform.account.userKey);
  const agentId = await hoursAgent(api);
  const em = platform.orm.em.fork();
  const number = await connectMessagingNumber(em, platform.account.account.id, {
    phoneNumber: '+14155550100',
    phoneNumberId: PHONE_NUMBER_ID,
    assistantId: agentId,
  });
  await setChannelSettings(em, SecretBox.fromKey(KEY), platform.account.account.id, 'messaging', PHONE_NUMBER_ID, {
    verifyToken: 'bench',
    appSecret: APP_SECRET,
    accessToken: 'bench-token',
    baseUrl: meta.baseUrl,
  });
  let n = 0;
  const send = async (from: string) => {
    const wamid = `wamid.bench.${++n}`;
    const res = await deliver(origin, 'messaging', whatsAppMessage(PHONE_NUMBER_ID, from, wamid, { text: 'When are you open?' }), APP_SECRET);
    if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
    return { wamid, answered: performance.timeOrigin + performance.now() };
  };

  // One person, one message after the other: delivery posted → reply received by the send API.
  const latencies: number[] = [];
  const times: MessageTimes[] = [];
  const one = '447700900001';
  for (let i = 0; i < MESSAGES + 5; i += 1) {
    const started = performance.now();
    const { wamid, answered } = await send(one);
    const replies = await meta.waitFor(one, i + 1, 30_000);
    if (FakeMetaServer.textOf(replies[i]!) !== REPLY) throw new Error(`unexpected reply ${JSON.stringify(replies[i]!.body)}`);
    if (i < 5) continue;
    latencies.push(replies[i]!.at - started);
    const wall = (t: number) => performance.timeOrigin + t;
    times.push({ wamid, posted: wall(started), answered, sent: wall(replies[i]!.at) });
  }
  const [{ id: conversationId }] = (await em.getKnex().raw(`select id from conversations where network_user_id = ?`, [one])).rows as { id: string }[];
  const phases = await phaseReport(platform.env.client, em.getKnex(), conversationId!, number.id, times);

  // SENDERS people at once on the one number.
  const senders = Array.from({ length: SENDERS }, (_, i) => `4478009${String(i).padStart(5, '0')}`);
  const before = meta.sent.length;
  const started = performance.now();
  await Promise.all(senders.map((from) => send(from)));
  const accepted = performance.now() - started;
  await Promise.all(senders.map((from) => meta.waitFor(from, 1, 180_000)));
  const elapsed = performance.now() - started;
  // Anything more would be a message answered twice: wait a little for stragglers.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const perSender = senders.map((from) => meta.sentTo(from).length);
  const twice = perSender.filter((count) => count !== 1).length;
  const replyTimes = senders.map((from) => meta.sentTo(from)[0]!.at - started);

  console.log(`messaging networks benchmark — ${cpus().length} cores, ${(totalmem() / 1e9).toFixed(1)} GB, load ${loadavg()[0]!.toFixed(2)}`);
  console.log(
    `${platform.temporalKind}, API and one worker process (runs and turns, outbox dispatcher), local Meta server; WhatsApp deliveries signed; flow: TRIGGER_INTENT → SAY_AI (static), no AI call`,
  );
  console.log(`inbound delivery to reply on the send API (${latencies.length} messages, one person): ${stats(latencies)} (target p50 < 120 ms)`);
  console.log('where the time goes (from the delivery posted; medians over the messages that passed each moment):');
  for (const line of phases) console.log(line);
  console.log(
    `${SENDERS} people at once on one number: all accepted in ${fmt(accepted)}, all answered in ${fmt(elapsed)}, ` +
      `${(SENDERS / (elapsed / 1000)).toFixed(1)} replies/s; reply ${stats(replyTimes)}; ` +
      `answered exactly once: ${SENDERS - twice}/${SENDERS}; send API calls ${meta.sent.length - before}`,
  );
  console.log(`uptime: ${execSync('uptime').toString().trim()}`);
  await cleanUp();
}

main().catch(async (error) => {
  console.error(error);
  await cleanUp();
  process.exit(1);
});
