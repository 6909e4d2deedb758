/** Request and response schemas of a workflow's schedule operations (extensions): backfill, trigger, next times. */
import { OVERLAP_POLICIES } from '../../integrations/temporal/schedule-operations.js';
import type { JsonSchema } from '../validation.js';
import { strictObject } from './common.schema.js';

const dateTime = { type: 'string', format: 'date-time' };
const nodeId = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: 'The SCHEDULED_TRIGGER node whose schedule to use; needed only when the live graph has more than one',
};
const overlap = (description: string) => ({ type: 'string', enum: [...OVERLAP_POLICIES], default: 'allow-all', description });

export const ScheduleBackfillRequestSchema: JsonSchema = {
  $id: 'ScheduleBackfillRequest',
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: {
    from: { ...dateTime, description: 'Occurrences at or after this time (ISO date-time)' },
    to: { ...dateTime, description: 'Occurrences up to this time: not in the future, at most 31 days after `from`, 1,000 occurrences at most' },
    overlap: overlap(
      "Temporal's overlap policy for the occurrences: `allow-all` (default) starts each as a run at once (they still queue for admission); " +
        '`buffer-all` runs them one after the other; `skip` drops an occurrence while the previous run runs',
    ),
    nodeId,
  },
};

export const ScheduleTriggerRequestSchema: JsonSchema = {
  $id: 'ScheduleTriggerRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    overlap: overlap('`allow-all` (default) runs now even while a scheduled run runs; `skip` does not then'),
    nodeId,
  },
};

const ids = {
  workflowId: { type: 'integer' },
  nodeId: { type: 'string' },
  scheduleId: { type: 'string', description: 'The Temporal Schedule, as the Temporal UI shows it' },
  overlap: { type: 'string', enum: [...OVERLAP_POLICIES] },
};

export const ScheduleBackfillSchema: JsonSchema = {
  $id: 'ScheduleBackfill',
  ...strictObject({
    ...ids,
    from: dateTime,
    to: dateTime,
    count: { type: 'integer', minimum: 0, description: 'Occurrences in the window: runs Temporal starts' },
    scheduledTimes: { type: 'array', items: dateTime, description: "Each occurrence's time, which its run gets as `trigger_payload.scheduledTime`" },
  }),
};

export const ScheduleTriggeredSchema: JsonSchema = {
  $id: 'ScheduleTriggered',
  ...strictObject({ ...ids, triggeredAt: dateTime }),
};

/** One schedule in `GET /workflows/{id}` (`schedules`). */
export const WorkflowScheduleSchema: JsonSchema = strictObject({
  nodeId: { type: 'string' },
  scheduleId: { type: 'string' },
  paused: { type: ['boolean', 'null'], description: 'null when Temporal did not answer' },
  nextTimes: { type: ['array', 'null'], items: dateTime, description: 'The next (up to 10) times it fires; null when Temporal did not answer' },
});
