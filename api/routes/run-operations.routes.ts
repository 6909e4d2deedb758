/**
 * Operations on one run of a workflow, beside SPEC's run logs (extensions): retry a failed run, terminate a running
 * one (cancellation is `cancelWorkflowRun`, with the logs).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { findAutomation } from '../../db/automations/automations.service.js';
import { IDEMPOTENCY_HEADER_SCHEMA } from '../../lib/idempotency.js';
import type { RetryChoice } from '../../integrations/temporal/run-retries.js';
import { IDEMPOTENCY_RESPONSES, idempotencyKeyOf, idempotentReply } from '../idempotency.js';
import type { RouteRegistry } from '../route-registry.js';
import { retryRunLog } from '../temporal/run-retry.js';
import { terminateRunLog } from '../temporal/run-logs.js';
import type { RunLog } from '../../integrations/temporal/run-history.js';
import { LogParamsSchema, RunLogSchema } from '../schemas/run-log.schema.js';
import { RetryQueuedSchema, RetryRunSchema, TerminateRunSchema } from '../schemas/run-operations.schema.js';

const tag = 'Workflow runs';
type LogId = { workflowId: number; logId: string };

/** `present`: a log as the logs' routes answer it (its Temporal UI address, the version it ran). */
export function runOperationRoutes(
  api: RouteRegistry,
  temporal: Client,
  present: (em: EntityManager, log: RunLog) => Promise<RunLog & { version: number | null }>,
): void {
  api.add<RetryChoice, unknown, LogId>({
    method: 'post',
    operationId: 'retryWorkflowRun',
    path: '/workflows/:workflowId/logs/:logId/retry',
    scope: 'U',
    tag,
    summary:
      'Retries a failed run as a new run (extension): from its failed node, keeping the results of the nodes before it, or from the start; ' +
      'on its own graph or the live one',
    params: LogParamsSchema,
    headers: IDEMPOTENCY_HEADER_SCHEMA,
    body: RetryRunSchema,
    status: 202,
    responses: {
      202: { description: 'The new run is queued (it waits for admission like every run); its log links `retry_of`', schema: RetryQueuedSchema },
      404: { description: 'Unknown workflow or log' },
      409: {
        description:
          'The run did not fail, has no failed node to start from, failed inside a loop, or the live graph no longer has the node (named); ' +
          `or the ${IDEMPOTENCY_RESPONSES[409].description}`,
      },
    },
    handler: async ({ auth, em, params, body, headers }) =>
      idempotentReply(
        await retryRunLog(em, temporal, await findAutomation(em, auth.account.id, params.workflowId), params.logId, body, idempotencyKeyOf(headers)),
      ),
  });
  api.add<{ reason: string }, unknown, LogId>({
    method: 'post',
    operationId: 'terminateWorkflowRun',
    path: '/workflows/:workflowId/logs/:logId/terminate',
    scope: 'U',
    tag,
    summary: 'Terminates a running run at once (extension): nothing more runs in it; the reason is recorded in its history and its log',
    params: LogParamsSchema,
    body: TerminateRunSchema,
    responses: {
      200: { description: 'The log, failed, its error `Terminated: <reason>`', schema: RunLogSchema },
      404: { description: 'Unknown workflow or log' },
      409: { description: 'The run has already ended' },
    },
    handler: async ({ auth, em, params, body }) => {
      await findAutomation(em, auth.account.id, params.workflowId);
      return present(
        em,
        await terminateRunLog(em, temporal, { accountId: auth.account.id, automationId: params.workflowId }, params.logId, body.reason),
      );
    },
  });
}
