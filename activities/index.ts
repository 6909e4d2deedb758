/**
 * Every activity the worker registers, built from its dependencies. Workflows import this module as a
 * type only (`import type`), so no I/O code enters a workflow bundle.
 */
import type { Client } from '@temporalio/client';
import type { Orm } from '../db/orm.js';
import { OutboxNotifier } from '../db/automations/outbox-notifier.js';
import type { FileStore } from '../db/tables/files/file-store.js';
import { createHeartbeatActivity } from './worker-heartbeat.activity.js';
import { TemporalAutomationSchedules } from '../integrations/temporal/automation-schedules.js';
import { createAiCallActivities } from './ai-call.activity.js';
import { AiGateway } from '../integrations/ai/ai-gateway.js';
import type { AiProvider } from '../integrations/ai/ai-provider.js';
import type { MessagingConfig } from '../integrations/messaging/cloud-api-messaging.js';
import type { SecretBox } from '../lib/secret-box.js';
import { REFUSE_PRIVATE, type OutboundPolicy } from '../lib/outbound/address-policy.js';
import { createOutboundFetch } from '../integrations/outbound/outbound-fetch.js';
import { createAiNodeSteps, createExecuteNode } from './execute-node.activity.js';
import { nodeFactsOf } from '../nodes/registry.js';
import { createRunLedgerActivities } from './run-ledger.activity.js';
import { createRetryJobActivities } from './retry-job.activity.js';
import { runUiUrl } from '../lib/runtime/run-start.js';
import { createHandoffActivities } from './handoff.activity.js';
import { createTurnActivities } from './turn.activity.js';
import { createKnowledgeActivities } from './knowledge-indexing.activity.js';
import { createChannelActivities } from './channel.activity.js';
import { createVoiceTranscriber } from '../integrations/messaging/voice-transcription.js';
import { deliverSaidAtOnce } from '../integrations/messaging/reply-delivery.js';

export interface ActivityDeps {
  orm: Orm;
  /** Temporal client of the worker process, for nodes that change other automations (schedules). */
  temporal: Client;
  /** Identity of the worker process, as Temporal shows it. */
  identity: string;
  taskQueue: string;
  /** Where the bytes of record files are stored. */
  files: FileStore;
  /** The AI provider of the gateway; absent: AI nodes fail with a message naming the variables to set. */
  aiProvider?: AiProvider | null;
  /** The messaging Cloud API; absent: SEND_MESSAGING_MESSAGE nodes fail saying it is not configured. */
  messaging?: MessagingConfig | null;
  /** The search API of the `web_search` system tool (WEB_SEARCH_URL); absent: the tool is not offered. */
  webSearchUrl?: string | null;
  /** What agents say when a turn has no message and no AI provider can write one. */
  conversationFallbackMessage?: string | null;
  /** Opens stored third-party secrets (numbers' Cloud API tokens); absent: SETTINGS_ENCRYPTION_KEY is unset. */
  secrets?: SecretBox | null;
  /** Which addresses calls to users' URLs may reach (OUTBOUND_ALLOW_PRIVATE, OUTBOUND_ALLOW_HOSTS); absent: no private one. */
  outbound?: OutboundPolicy;
  /** The Temporal UI (TEMPORAL_UI_URL) and the namespace, for links to runs in AUTOMATION_FAILED events; absent: no link. */
  temporalUi?: { url: string; namespace: string } | null;
  /** PUBLIC_BASE_URL, for links to the operator console in CONVERSATION_HANDED_OFF events; absent: no link. */
  publicBaseUrl?: string | null;
}

export function createActivities({
  orm,
  temporal,
  identity,
  taskQueue,
  files,
  aiProvider,
  messaging,
  webSearchUrl,
  conversationFallbackMessage,
  secrets,
  outbound: policy = REFUSE_PRIVATE,
  temporalUi,
  publicBaseUrl,
}: ActivityDeps) {
  const outbox = new OutboxNotifier(orm.em.getKnex());
  const httpTimeoutMs = 30_000;
  const outbound = createOutboundFetch(policy);
  const channelDeps = { orm, temporal, taskQueue, secrets: secrets ?? null, messaging: messaging ?? null, outbox, httpTimeoutMs };
  const hear = createVoiceTranscriber({ ...channelDeps, provider: aiProvider ?? null });
  const executorDeps = {
    orm,
    temporal,
    schedules: new TemporalAutomationSchedules(temporal, taskQueue, nodeFactsOf),
    httpTimeoutMs,
    outbound,
    ai: new AiGateway(aiProvider ?? null, outbound),
    messaging: messaging ?? null,
    webSearchUrl: webSearchUrl ?? null,
    secrets: secrets ?? null,
    outbox,
    files,
    // The conversation side: what a turn's node says on a messaging network leaves from its activity at once.
    afterNode: deliverSaidAtOnce(channelDeps),
    sendsSaidAtOnce: true,
  };
  const uiLink = temporalUi ? (id: string, runId: string) => runUiUrl(temporalUi.url, temporalUi.namespace, id, runId) : undefined;
  const ledger = createRunLedgerActivities(orm, outbox, uiLink);
  return {
    recordWorkerHeartbeat: createHeartbeatActivity(orm, identity, taskQueue),
    executeNode: createExecuteNode(executorDeps, ledger),
    ...createAiNodeSteps(executorDeps, ledger),
    ...createAiCallActivities({ orm, provider: aiProvider ?? null, httpTimeoutMs, outbound }),
    ...ledger,
    ...createRetryJobActivities(orm, temporal),
    ...createKnowledgeActivities({ orm, provider: aiProvider ?? null, outbound, httpTimeoutMs }),
    ...createChannelActivities({ ...channelDeps, hear }),
    ...createHandoffActivities(orm, { outbox, publicBaseUrl: publicBaseUrl ?? null }),
    ...createTurnActivities(orm, {
      outbox,
      aiAvailable: !!aiProvider,
      ...(conversationFallbackMessage ? { fallbackMessage: conversationFallbackMessage } : {}),
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
