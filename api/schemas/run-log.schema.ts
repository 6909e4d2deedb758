/** Query and response schemas of workflow run logs and workflow analytics (SPEC "Workflow run log", "Workflow analytics"). */
import type { JsonSchema } from '../validation.js';
import { dateBoundQuery, strictObject } from './common.schema.js';

const object = strictObject;

const timestamp = { type: 'string', format: 'date-time' };

export const WorkflowIdParamsSchema: JsonSchema = {
  type: 'object',
  required: ['workflowId'],
  properties: { workflowId: { type: 'integer', minimum: 1 } },
};

export const LogParamsSchema: JsonSchema = {
  type: 'object',
  required: ['workflowId', 'logId'],
  properties: {
    workflowId: { type: 'integer', minimum: 1 },
    logId: { type: 'string', minLength: 1, maxLength: 1000, description: 'The Temporal workflow id of the run (`id` of a log)' },
  },
};

export const LogListQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: {
      type: 'string',
      maxLength: 20,
      description:
        'successful, failed, running or cancelled (case-insensitive; success and completed mean successful, error means failed, pending means running)',
    },
    start_date: dateBoundQuery('Runs started at or after: YYYY-MM-DD (from 00:00 UTC) or an ISO date-time'),
    end_date: dateBoundQuery('Runs started at or before: YYYY-MM-DD (the whole day, UTC) or an ISO date-time'),
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    cursor: { type: 'string', maxLength: 2048, description: 'nextCursor of the previous page' },
  },
};

export const AnalyticsQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    startDate: dateBoundQuery('First day (UTC), YYYY-MM-DD or an ISO date-time; empty or null: 29 days before endDate', ['', 'null']),
    endDate: dateBoundQuery('Last day (UTC), YYYY-MM-DD or an ISO date-time; empty or null: today', ['', 'null']),
  },
};

const runLog = {
  id: { type: 'string', description: 'The log id: the Temporal workflow id of the run' },
  status: { type: 'string', enum: ['running', 'successful', 'failed', 'cancelled'] },
  successful: { type: 'boolean' },
  started_at: timestamp,
  completed_at: { type: ['string', 'null'], format: 'date-time', description: 'null while running' },
  duration: { type: 'integer', description: 'Milliseconds; for a running run, the time elapsed so far' },
  operations: { type: 'integer', description: 'Executed nodes' },
  ai_credits: { type: 'number' },
  error: { type: ['string', 'null'] },
  insufficient_credits: { type: 'boolean', description: 'The run stopped before any node: the account had no credits' },
  prevented_loop: { type: 'boolean', description: 'The run stopped before any node: an event of its own run triggered it' },
  trigger_type: { type: ['string', 'null'], description: 'MANUAL, SCHEDULED_TRIGGER or the event type that started the run' },
  version: {
    type: ['integer', 'null'],
    description: 'The version of the workflow the run executed; null for a run of the draft, or until the run has recorded its start',
  },
  temporal_workflow_id: { type: 'string', description: 'Open the run in the Temporal UI with this id' },
  temporal_run_id: { type: 'string' },
  temporal_ui_url: { type: ['string', 'null'], description: 'The run in the Temporal UI (TEMPORAL_UI_URL); null when the API has no UI address' },
};

const nodeResult = object({
  node_id: { type: 'string' },
  alias: { type: 'string' },
  type: { type: 'string' },
  success: { type: 'boolean' },
  error: { type: ['string', 'null'] },
  ai_credits: { type: 'number' },
  created_at: { type: ['string', 'null'], format: 'date-time', description: 'When the node finished' },
  output: { description: 'The node output, `{<nodeId>}` in later nodes' },
});

export const RunLogSchema: JsonSchema = { $id: 'RunLog', ...object(runLog) };
export const RunLogPageSchema: JsonSchema = {
  $id: 'RunLogPage',
  ...object({
    agentry: { type: 'array', items: object(runLog) },
    nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page' },
  }),
};
const retryLink = object({
  id: { type: 'string', description: 'The log id of the new run' },
  from: { type: 'string', enum: ['failed-node', 'start'] },
  graph: { type: 'string', enum: ['original', 'live'] },
  job_id: { type: ['string', 'null'], description: 'The retry job that made it; null for a retry of this run alone' },
  created_at: timestamp,
});

export const RunLogDetailSchema: JsonSchema = {
  $id: 'RunLogDetail',
  ...object({
    ...runLog,
    retry_of: { type: ['string', 'null'], description: 'The log this run retries (extension); null when it is not a retry' },
    retries: { type: 'array', items: retryLink, description: 'Retries of this run, oldest first (extension)' },
    node_results: { type: 'array', items: nodeResult, description: 'One per executed node, in execution order' },
  }),
};

const count = { type: 'integer', minimum: 0 };
export const AnalyticsSchema: JsonSchema = {
  $id: 'WorkflowAnalytics',
  ...object({
    startDate: { type: 'string', format: 'date' },
    endDate: { type: 'string', format: 'date' },
    runsByDate: {
      type: 'array',
      description: 'One entry per day of the range (UTC), days without runs included',
      items: object({
        date: { type: 'string', format: 'date' },
        totalRuns: count,
        completedRuns: count,
        failedRuns: count,
        pendingRuns: count,
        cancelledRuns: count,
        totalCredits: { type: 'number' },
      }),
    },
    summary: object({
      totalRuns: count,
      totalCredits: { type: 'number' },
      averageCreditsPerRun: { type: 'number' },
      nonExecutedRuns: { ...count, description: 'Runs stopped before any node (loop prevented or no credits left)' },
    }),
  }),
};
