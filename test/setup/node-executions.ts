/**
 * Runs one node execution through the real `executeNode` activity (registry, error mapping, retry safety) outside a
 * workflow, as Temporal would run an attempt of it: the same `executionKey` with a higher `attempt` is a retry
 * after a lost completion.
 */
import { DefaultLogger } from '@temporalio/worker';
import { MockActivityEnvironment, defaultActivityInfo } from '@temporalio/testing';
import { createExecuteNode } from '../../activities/execute-node.activity.js';
import { createRunLedgerActivities } from '../../activities/run-ledger.activity.js';
import { nodeFactsOf } from '../../nodes/registry.js';
import type { AiReply } from '../../lib/runtime/ai-call.js';
import type { ExecuteNodeInput, NodeOutcome } from '../../lib/runtime/contract.js';
import { TemporalAutomationSchedules } from '../../integrations/temporal/automation-schedules.js';
import { LocalFileStore } from '../../integrations/files/local-file-store.js';
import { AiGateway } from '../../integrations/ai/ai-gateway.js';
import type { AiProvider } from '../../integrations/ai/ai-provider.js';
import type { MessagingConfig } from '../../integrations/messaging/cloud-api-messaging.js';
import { SecretBox } from '../../lib/secret-box.js';
import { createOutboundFetch } from '../../integrations/outbound/outbound-fetch.js';
import { harness, TEST_OUTBOUND_POLICY, TEST_SETTINGS_KEY } from './harness.js';

// Expected node failures are not worth a warning in the test output.
const quiet = new DefaultLogger('ERROR');

export interface NodeExecution {
  accountId: number;
  type: string;
  data: Record<string, unknown>;
  /** Names the execution; attempts of one execution share it. */
  executionKey: string;
  automationId?: number;
  /** The AI provider behind the gateway; the harness's fake one when omitted, null for none configured. */
  aiProvider?: AiProvider | null;
  /** Replies of the AI calls already made for this execution (`ExecuteNodeInput.aiReplies`). */
  aiReplies?: AiReply[];
  /** The worker's MESSAGING_API_URL settings; the harness's local Cloud API when omitted, null for none configured. */
  messaging?: MessagingConfig | null;
  /** SETTINGS_ENCRYPTION_KEY of the worker; the harness's when omitted. */
  settingsKey?: string;
}

export async function executeNodeAttempt(execution: NodeExecution, attempt = 1): Promise<NodeOutcome> {
  const h = harness();
  const executeNode = createExecuteNode(
    {
      orm: h.orm,
      temporal: h.env.client,
      schedules: new TemporalAutomationSchedules(h.env.client, h.taskQueue, nodeFactsOf),
      httpTimeoutMs: 5_000,
      outbound: createOutboundFetch(TEST_OUTBOUND_POLICY),
      files: new LocalFileStore('.data/files'),
      ai: new AiGateway(execution.aiProvider === undefined ? h.aiProvider : execution.aiProvider),
      messaging: execution.messaging === undefined ? { baseUrl: h.messaging.baseUrl, token: 'test-messaging-token' } : execution.messaging,
      secrets: SecretBox.fromKey(execution.settingsKey ?? TEST_SETTINGS_KEY),
    },
    createRunLedgerActivities(h.orm),
  );
  const input: ExecuteNodeInput = {
    accountId: execution.accountId,
    automationId: execution.automationId ?? 1,
    node: { nodeId: 'node_under_test', alias: 'under_test', type: execution.type },
    data: { type: execution.type, ...execution.data },
    executionKey: execution.executionKey,
    chain: [execution.automationId ?? 1],
    ...(execution.aiReplies && { aiReplies: execution.aiReplies }),
  };
  const workflowExecution = { workflowId: `automation:${input.automationId}:test`, runId: execution.executionKey };
  const env = new MockActivityEnvironment({ ...defaultActivityInfo, workflowExecution, activityId: '1', attempt }, { logger: quiet });
  return (await env.run(executeNode, input)) as NodeOutcome;
}
