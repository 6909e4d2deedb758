/** Retry jobs of a workflow (an extension beside SPEC's run logs): retry many failed runs, follow, cancel. */
import type { Client } from '@temporalio/client';
import { findAutomation } from '../../db/automations/automations.service.js';
import type { RouteRegistry } from '../route-registry.js';
import { cancelRetryJob, getRetryJob, startRetryJob, type RetryJobBody } from '../temporal/retry-jobs.js';
import { WorkflowIdParamsSchema } from '../schemas/run-log.schema.js';
import { RetryJobDryRunSchema, RetryJobRequestSchema, RetryJobSchema } from '../schemas/run-operations.schema.js';

const tag = 'Workflow runs';
type Id = { workflowId: number };
type JobId = Id & { jobId: string };
const jobParams = {
  type: 'object',
  required: ['workflowId', 'jobId'],
  properties: { workflowId: { type: 'integer', minimum: 1 }, jobId: { type: 'string', minLength: 1, maxLength: 100 } },
};

export function retryJobRoutes(api: RouteRegistry, temporal: Client, taskQueue: string): void {
  api.add<RetryJobBody, unknown, Id>({
    method: 'post',
    operationId: 'startWorkflowRetryJob',
    path: '/workflows/:workflowId/retries',
    scope: 'U',
    tag,
    summary: 'Retries the failed runs a filter finds, as a job (a Temporal workflow) at a bounded rate, each run at most once (extension)',
    params: WorkflowIdParamsSchema,
    body: RetryJobRequestSchema,
    status: 202,
    responses: {
      202: { description: 'The job (or, with dryRun, the count and a sample)', schema: { oneOf: [RetryJobSchema, RetryJobDryRunSchema] } },
      404: { description: 'Unknown workflow' },
    },
    handler: async ({ auth, em, params, body }) =>
      startRetryJob(em, temporal, taskQueue, await findAutomation(em, auth.account.id, params.workflowId), body),
  });
  api.add<unknown, unknown, JobId>({
    method: 'get',
    operationId: 'getWorkflowRetryJob',
    path: '/workflows/:workflowId/retries/:jobId',
    scope: 'U',
    tag,
    summary: 'A retry job with its counts: planned, started, succeeded, failed, running (extension)',
    params: jobParams,
    responses: { 200: { description: 'The job', schema: RetryJobSchema }, 404: { description: 'Unknown workflow or job' } },
    handler: async ({ auth, em, params }) => getRetryJob(em, await findAutomation(em, auth.account.id, params.workflowId), params.jobId),
  });
  api.add<unknown, unknown, JobId>({
    method: 'delete',
    operationId: 'cancelWorkflowRetryJob',
    path: '/workflows/:workflowId/retries/:jobId',
    scope: 'U',
    tag,
    summary: 'Cancels a retry job between batches; retries already queued still run (extension)',
    params: jobParams,
    status: 202,
    responses: { 202: { description: 'The job as it is now', schema: RetryJobSchema }, 404: { description: 'Unknown workflow or job' } },
    handler: async ({ auth, em, params }) => cancelRetryJob(em, temporal, await findAutomation(em, auth.account.id, params.workflowId), params.jobId),
  });
}
