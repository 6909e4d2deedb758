/** A workflow's schedule operations (extensions beside SPEC's workflows): backfill missed occurrences, run now. */
import type { Client } from '@temporalio/client';
import { findAutomation } from '../../db/automations/automations.service.js';
import type { RouteRegistry } from '../route-registry.js';
import { backfillSchedule, triggerSchedule, type BackfillBody, type TriggerBody } from '../temporal/schedules.js';
import { WorkflowIdParamsSchema } from '../schemas/run-log.schema.js';
import {
  ScheduleBackfillRequestSchema,
  ScheduleBackfillSchema,
  ScheduleTriggeredSchema,
  ScheduleTriggerRequestSchema,
} from '../schemas/schedules.schema.js';

const tag = 'Workflow runs';
type Id = { workflowId: number };
const noSchedule = { description: 'The workflow is not ACTIVE, or its live graph has no SCHEDULED_TRIGGER node' };
const unavailable = { description: 'Temporal did not answer; nothing was started' };

export function scheduleRoutes(api: RouteRegistry, temporal: Client): void {
  api.add<BackfillBody, unknown, Id>({
    method: 'post',
    operationId: 'backfillWorkflowSchedule',
    path: '/workflows/:workflowId/schedule/backfill',
    scope: 'U',
    tag,
    summary:
      "Runs the occurrences a SCHEDULED_TRIGGER node's schedule had in a past window, through Temporal's schedule backfill (extension): " +
      'each a scheduled run with its time in trigger_payload.scheduledTime',
    params: WorkflowIdParamsSchema,
    body: ScheduleBackfillRequestSchema,
    status: 202,
    responses: {
      202: { description: 'The occurrences Temporal starts as runs', schema: ScheduleBackfillSchema },
      404: { description: 'Unknown workflow' },
      409: noSchedule,
      503: unavailable,
    },
    handler: async ({ auth, em, params, body }) => backfillSchedule(em, temporal, await findAutomation(em, auth.account.id, params.workflowId), body),
  });
  api.add<TriggerBody, unknown, Id>({
    method: 'post',
    operationId: 'triggerWorkflowSchedule',
    path: '/workflows/:workflowId/schedule/trigger',
    scope: 'U',
    tag,
    summary: "Runs a SCHEDULED_TRIGGER node's schedule now, through Temporal (extension): one scheduled run, its scheduled time now",
    params: WorkflowIdParamsSchema,
    body: ScheduleTriggerRequestSchema,
    status: 202,
    responses: {
      202: { description: 'Temporal takes the action', schema: ScheduleTriggeredSchema },
      404: { description: 'Unknown workflow' },
      409: noSchedule,
      503: unavailable,
    },
    handler: async ({ auth, em, params, body }) => triggerSchedule(em, temporal, await findAutomation(em, auth.account.id, params.workflowId), body),
  });
}
