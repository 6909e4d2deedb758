/**
 * The soak's mixed workload at a steady rate, through the load balancer only (the public HTTP API, the webhook and
 * widget routes, Meta's webhook), with what was accepted recorded for the checker: webhook calls to an ACTIVE
 * automation that writes a row carrying the call's id, API conversation turns, widget visitors with their event
 * streams open (widget-visitors.ts), Meta deliveries (one person per message), table row writes, knowledge documents.
 * Each kind runs as actors: an actor makes its request (retried by the client until answered), then waits out the
 * rest of its period. SOAK_RATE scales every rate.
 */
import { randomUUID } from 'node:crypto';
import { connectMessagingNumber } from '../../../db/channels/numbers-and-pages.service.js';
import { setChannelSettings } from '../../../db/channels/network-accounts.service.js';
import { SecretBox } from '../../../lib/secret-box.js';
import { hoursAgent } from '../../bench/bench-agent.js';
import { sign, whatsAppMessage } from '../../setup/fake-meta-server.js';
import { TEST_SETTINGS_KEY } from '../../setup/harness.js';
import type { SoakClient } from './client.js';
import type { SoakPlatform } from './platform.js';
import { WidgetVisitor } from './widget-visitors.js';

export const HOOK_TABLE = 'soak_hooks';
export const ROW_TABLE = 'soak_rows';
const APP_SECRET = 'soak-app-secret';
const PHONE_NUMBER_ID = '100200300400777';
export const HOURS_QUESTION = 'what are your opening hours';

/** What the platform answered, kept for the checker. */
export interface Ledger {
  /** Webhook calls by call id: the final status (202 accepted; 0 never answered). */
  webhooks: Map<string, number>;
  /** Row writes by key: the final status (201 acknowledged). */
  rows: Map<string, number>;
  /** Meta deliveries by message id: the person who wrote it and the final status (200 accepted). */
  meta: Map<string, { person: string; status: number }>;
  /** API conversation turns: per conversation, the turns answered 200 and those never answered. */
  turns: Map<string, { accepted: number; unanswered: number }>;
  /** Knowledge documents by id (accepted ones). */
  documents: Set<string>;
  widget: WidgetVisitor[];
}

export interface Workload {
  ledger: Ledger;
  agentBase: string;
  knowledgeBase: number;
  /** Stops every actor and waits for the requests in flight; the widget streams stay open for the checker. */
  stop(): Promise<void>;
}

/** The resources the workload uses, made through the API (the Meta connection through the admin services). */
async function setUp(platform: SoakPlatform, client: SoakClient) {
  const key = platform.account.userKey;
  const must = (method: string, path: string, body?: unknown) => client.must(method, path, key, body);
  await must('POST', '/tables', { name: HOOK_TABLE, columns: [{ name: 'CallId', type: 'string' }] });
  const table = await must('GET', `/tables/${HOOK_TABLE}`);
  await must('POST', '/tables', { name: ROW_TABLE, columns: [{ name: 'Key', type: 'string' }] });
  const hook = await must('POST', '/incoming-webhooks', { name: 'soak', useAuthentication: false });
  const workflow = await must('POST', '/workflows', { name: 'soak' });
  const nodes = [
    { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in', triggerByWebhookIds: [hook.id] } },
    { type: 'DYNAMIC_TABLES', data: { action: 'CREATE', tableId: table.id, rowData: { CallId: '{trigger_payload.callId}' } } },
  ];
  const ids: string[] = [];
  for (const node of nodes) ids.push((await must('POST', `/workflows/${workflow.id}/nodes`, node)).nodes.at(-1).nodeId);
  await must('POST', `/workflows/${workflow.id}/edges`, { source: ids[0], handle: 'default', targetEdge: ids[1] });
  await must('POST', `/workflows/${workflow.id}/publish`);
  await must('PUT', `/workflows/${workflow.id}`, { status: 'ACTIVE' });
  const agent = await hoursAgent(must);
  await must('PUT', `${agent.base}/settings/messaging`, { enabled: true });
  const em = platform.orm.em.fork();
  const accountId = platform.account.account.id;
  await connectMessagingNumber(em, accountId, { phoneNumber: '+14155550177', phoneNumberId: PHONE_NUMBER_ID, assistantId: agent.id });
  await setChannelSettings(em, SecretBox.fromKey(TEST_SETTINGS_KEY), accountId, 'messaging', PHONE_NUMBER_ID, {
    verifyToken: 'soak',
    appSecret: APP_SECRET,
    accessToken: 'soak-token',
    baseUrl: platform.meta.baseUrl,
  });
  const kb = await must('POST', '/knowledge-bases', { name: 'Soak' });
  return { hookId: hook.id as string, agent, knowledgeBase: kb.id as number };
}

/** Runs `op` every `periodMs` (after the previous one was answered) until stopped. */
function actor(periodMs: number, op: () => Promise<void>, stopped: () => boolean): Promise<void> {
  return (async () => {
    // Actors of one kind start spread over their period, not in step.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * periodMs));
    while (!stopped()) {
      const started = Date.now();
      await op();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, periodMs - (Date.now() - started))));
    }
  })();
}

export interface WorkloadOptions {
  /** Multiplies every rate (1: about 7 requests per second in all). */
  rate: number;
  /** Widget streams resume with `Last-Event-ID` alone (true) or with `after` as well (today's API reads only `after`). */
  resumeByHeader: boolean;
}

export async function startWorkload(platform: SoakPlatform, client: SoakClient, options: WorkloadOptions): Promise<Workload> {
  const { hookId, agent, knowledgeBase } = await setUp(platform, client);
  const key = platform.account.userKey;
  const generalKey = platform.account.generalKey;
  const ledger: Ledger = { webhooks: new Map(), rows: new Map(), meta: new Map(), turns: new Map(), documents: new Set(), widget: [] };
  let stopped = false;
  const period = (perSecond: number) => 1000 / (perSecond * options.rate);
  const actors: Promise<void>[] = [];
  const every = (count: number, perSecondEach: number, op: (i: number) => () => Promise<void>) => {
    for (let i = 0; i < count; i += 1) actors.push(actor(period(perSecondEach), op(i), () => stopped));
  };

  every(2, 1, () => async () => {
    const callId = randomUUID();
    const res = await client.send('webhook', 'POST', `/webhooks/${hookId}`, { body: { callId }, headers: { 'Idempotency-Key': callId } });
    ledger.webhooks.set(callId, res.status);
  });
  every(2, 1, () => async () => {
    const rowKey = randomUUID();
    const res = await client.send('row write', 'POST', `/public/v1/tables/${ROW_TABLE}/rows`, {
      key,
      body: { Key: rowKey },
      headers: { 'Idempotency-Key': rowKey },
    });
    ledger.rows.set(rowKey, res.status);
  });
  every(1, 1, () => async () => {
    const person = `4479${String(Date.now()).slice(-9)}${Math.floor(Math.random() * 10)}`;
    const wamid = `wamid.soak.${randomUUID()}`;
    const payload = whatsAppMessage(PHONE_NUMBER_ID, person, wamid, { text: HOURS_QUESTION });
    const body = JSON.stringify(payload);
    const res = await client.send('meta delivery', 'POST', '/channels/v1/messaging/webhook', {
      body: payload,
      headers: { 'x-hub-signature-256': sign(APP_SECRET, body) },
    });
    ledger.meta.set(wamid, { person, status: res.status });
  });
  for (let i = 0; i < 2; i += 1) {
    const started = await client.send('conversation start', 'POST', `/public/v1${agent.base}/conversations`, { key: generalKey, body: {} });
    if (started.status !== 201) throw new Error(`conversation start: ${started.status} ${JSON.stringify(started.body)}`);
    const conversationId = started.body.id as string;
    const counts = { accepted: 0, unanswered: 0 };
    ledger.turns.set(conversationId, counts);
    every(1, 0.5, () => async () => {
      const res = await client.send('api turn', 'POST', `/public/v1${agent.base}/conversations/${conversationId}/messages`, {
        key: generalKey,
        body: { text: HOURS_QUESTION, messageId: randomUUID() },
      });
      if (res.status === 200) counts.accepted += 1;
      else counts.unanswered += 1;
    });
  }
  every(1, 0.2, () => async () => {
    const text = `Soak document ${randomUUID()}: returns are accepted within 30 days of delivery.`;
    const res = await client.send('knowledge document', 'POST', `/public/v1/knowledge-bases/${knowledgeBase}/documents`, {
      key,
      body: { title: 'Returns', content: text },
    });
    if (res.status === 200 || res.status === 201) ledger.documents.add(res.body.id);
  });
  for (let i = 0; i < 3; i += 1) {
    const visitor = new WidgetVisitor(client, agent.id, options.resumeByHeader);
    await visitor.start();
    ledger.widget.push(visitor);
    every(1, 0.25, () => () => visitor.say(HOURS_QUESTION));
  }
  return {
    ledger,
    agentBase: agent.base,
    knowledgeBase,
    async stop() {
      stopped = true;
      await Promise.all(actors);
    },
  };
}
