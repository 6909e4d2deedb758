import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findAutomation } from '../../db/automations/automations.service.js';
import type { RunLog } from '../../integrations/temporal/run-history.js';
import { versionsOfRuns } from '../../db/automations/versions.service.js';
import { analyticsOf } from '../temporal/run-analytics-query.js';
import { cancelRunLog, getRunLog, listRunLogs, type LogListQuery } from '../temporal/run-logs.js';
import type { RouteRegistry } from '../route-registry.js';
import { runOperationRoutes } from './run-operations.routes.js';
import {
  AnalyticsQuerySchema,
  AnalyticsSchema,
  LogListQuerySchema,
  LogParamsSchema,
  RunLogDetailSchema,
  RunLogPageSchema,
  RunLogSchema,
  WorkflowIdParamsSchema,
} from '../schemas/run-log.schema.js';

const tag = 'Workflow runs';
type Id = { workflowId: number };
type LogId = Id & { logId: string };

/** `uiUrl`: the Temporal UI address (TEMPORAL_UI_URL); each log links to its run there. */
export function workflowLogRoutes(api: RouteRegistry, temporal: Client, uiUrl?: string): void {
  const namespace = encodeURIComponent(temporal.options.namespace);
  const linked = <T extends RunLog>(log: T): T & { temporal_ui_url: string | null } => ({
    ...log,
    temporal_ui_url: uiUrl
      ? `${uiUrl}/namespaces/${namespace}/workflows/${encodeURIComponent(log.temporal_workflow_id)}/${log.temporal_run_id}/history`
      : null,
  });
  /** The logs with the version each run executed (from the run ledger). */
  const versioned = async <T extends RunLog>(em: EntityManager, logs: T[]): Promise<(T & { version: number | null })[]> => {
    const versions = await versionsOfRuns(
      em,
      logs.map((l) => l.id),
    );
    return logs.map((log) => ({ ...log, version: versions.get(log.id) ?? null }));
  };
  runOperationRoutes(api, temporal, async (em, log) => (await versioned(em, [linked(log)]))[0]!);
  api.add<unknown, LogListQuery, Id>({
    method: 'get',
    operationId: 'listWorkflowLogs',
    path: '/workflows/:workflowId/logs',
    scope: 'U',
    tag,
    summary: 'Runs of a workflow from Temporal visibility: running first, then most recently ended first (changes show after a short lag)',
    params: WorkflowIdParamsSchema,
    query: LogListQuerySchema,
    responses: { 200: { description: '{ agentry: [RunLog], nextCursor }', schema: RunLogPageSchema }, 404: { description: 'Unknown workflow' } },
    handler: async ({ auth, em, params, query }) => {
      await findAutomation(em, auth.account.id, params.workflowId);
      const page = await listRunLogs(temporal, { accountId: auth.account.id, automationId: params.workflowId }, query);
      return { ...page, agentry: await versioned(em, page.agentry.map(linked)) };
    },
  });
  api.add<unknown, unknown, LogId>({
    method: 'get',
    operationId: 'getWorkflowLog',
    path: '/workflows/:workflowId/logs/:logId',
    scope: 'U',
    tag,
    summary: 'One run with the result of each executed node',
    params: LogParamsSchema,
    responses: { 200: { description: 'RunLog with node_results', schema: RunLogDetailSchema }, 404: { description: 'Unknown workflow or log' } },
    handler: async ({ auth, em, params }) => {
      await findAutomation(em, auth.account.id, params.workflowId);
      const [log] = await versioned(em, [
        linked(await getRunLog(em, temporal, { accountId: auth.account.id, automationId: params.workflowId }, params.logId)),
      ]);
      return log;
    },
  });
  api.add<unknown, unknown, LogId>({
    method: 'post',
    operationId: 'cancelWorkflowRun',
    path: '/workflows/:workflowId/logs/:logId/cancel',
    scope: 'U',
    tag,
    summary: 'Requests cancellation of a running run; the log shows it cancelled once the run has stopped',
    params: LogParamsSchema,
    status: 202,
    responses: {
      202: { description: 'The log as it is now (usually still running)', schema: RunLogSchema },
      404: { description: 'Unknown workflow or log' },
      409: { description: 'The run has already ended' },
    },
    handler: async ({ auth, em, params }) => {
      await findAutomation(em, auth.account.id, params.workflowId);
      const [log] = await versioned(em, [
        linked(await cancelRunLog(temporal, { accountId: auth.account.id, automationId: params.workflowId }, params.logId)),
      ]);
      return log;
    },
  });
  api.add<unknown, { startDate?: string; endDate?: string }, Id>({
    method: 'get',
    operationId: 'getWorkflowAnalytics',
    path: '/workflows/:workflowId/analytics',
    scope: 'any',
    tag,
    summary: 'Runs per day (UTC) and credit totals from the run ledger; the last 30 days unless startDate/endDate say otherwise',
    params: WorkflowIdParamsSchema,
    query: AnalyticsQuerySchema,
    responses: { 200: { description: 'runsByDate and summary', schema: AnalyticsSchema }, 404: { description: 'Unknown workflow' } },
    handler: async ({ auth, em, params, query }) => analyticsOf(em, (await findAutomation(em, auth.account.id, params.workflowId)).id, query),
  });
}
