import type { Client } from '@temporalio/client';
import { findAutomation } from '../../db/automations/automations.service.js';
import { startManualRun } from '../temporal/runs.js';
import type { RouteRegistry } from '../route-registry.js';
import { ManualRunSchema } from '../schemas/workflow.schema.js';
import { ManualRunStartedSchema } from '../schemas/workflow-responses.schema.js';

const params = { type: 'object', required: ['workflowId'], properties: { workflowId: { type: 'integer', minimum: 1 } } };

export function workflowRunRoutes(api: RouteRegistry, temporal: Client): void {
  api.add<{ payload?: unknown; entryNodeId?: string }, { snapshot: 'live' | 'draft' }, { workflowId: number }>({
    method: 'post',
    operationId: 'startWorkflowRun',
    path: '/workflows/:workflowId/runs',
    scope: 'any',
    tag: 'Workflow runs',
    summary: 'Starts a manual run with a payload ({trigger_payload}) on the live snapshot, or the draft with ?snapshot=draft',
    params,
    query: { type: 'object', additionalProperties: false, properties: { snapshot: { type: 'string', enum: ['live', 'draft'], default: 'live' } } },
    body: ManualRunSchema,
    largeBody: true,
    status: 202,
    responses: {
      202: {
        description: '{ id: the Temporal workflow id, runId (null while the run waits for admission), snapshotId, entryNodeId }',
        schema: ManualRunStartedSchema,
      },
    },
    handler: async ({ auth, em, params, query, body }) =>
      startManualRun(em, temporal, await findAutomation(em, auth.account.id, params.workflowId), { ...body, snapshot: query.snapshot }),
  });
}
