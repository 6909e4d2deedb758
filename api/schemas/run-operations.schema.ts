/** Request and response schemas of the run operations (extensions beside SPEC's run logs): retries, termination. */
import type { JsonSchema } from '../validation.js';
import { strictObject } from './common.schema.js';

const from = {
  type: 'string',
  enum: ['failed-node', 'start'],
  default: 'failed-node',
  description: '`failed-node`: keep the results of the nodes before the failed one and run from it; `start`: run again from the entry node',
};
const graph = {
  type: 'string',
  enum: ['original', 'live'],
  default: 'original',
  description: "`original`: the failed run's own graph; `live`: the workflow's live graph now (409 when it no longer has the node to start from)",
};

export const RetryRunSchema: JsonSchema = {
  $id: 'RetryRunRequest',
  type: 'object',
  additionalProperties: false,
  properties: { from, graph },
};

export const RetryQueuedSchema: JsonSchema = {
  $id: 'RetryQueued',
  ...strictObject({
    id: { type: 'string', description: 'The log id (Temporal workflow id) of the new run, `automation:<id>:retry-<uuid>`' },
    retryOf: { type: 'string', description: 'The log it retries' },
    from: { type: 'string', enum: ['failed-node', 'start'] },
    graph: { type: 'string', enum: ['original', 'live'] },
    eventId: { type: 'string', description: 'The outbox event that starts it once admitted' },
  }),
};

export const TerminateRunSchema: JsonSchema = {
  $id: 'TerminateRunRequest',
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: { reason: { type: 'string', minLength: 1, maxLength: 1000, description: 'Recorded in the run’s history and its log’s error' } },
};

export { from as RETRY_FROM, graph as RETRY_GRAPH };

const dateTime = { type: 'string', format: 'date-time' };

export const RetryJobRequestSchema: JsonSchema = {
  $id: 'RetryJobRequest',
  type: 'object',
  additionalProperties: false,
  required: ['filter'],
  properties: {
    filter: {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'from', 'to'],
      properties: {
        status: { type: 'string', enum: ['failed'] },
        from: { ...dateTime, description: 'Runs started at or after (ISO date-time)' },
        to: { ...dateTime, description: 'Runs started before (ISO date-time); at most 31 days after `from`' },
        nodeId: { type: 'string', minLength: 1, maxLength: 200, description: 'Only runs that failed at this node' },
        errorContains: { type: 'string', minLength: 1, maxLength: 500, description: 'Only runs whose error contains this (case-insensitive)' },
      },
    },
    from,
    graph,
    dryRun: { type: 'boolean', default: false, description: 'Answer the count and a sample of the runs, start nothing' },
  },
};

const count = { type: 'integer', minimum: 0 };
export const RetryJobSchema: JsonSchema = {
  $id: 'RetryJob',
  ...strictObject({
    id: { type: 'string' },
    workflowId: { type: 'integer' },
    status: { type: 'string', enum: ['running', 'completed', 'cancelled'] },
    request: { type: 'object', description: 'The filter, from and graph the job was started with' },
    planned: { type: ['integer', 'null'], description: 'Failed runs the filter found (null while the job lists them)' },
    started: { ...count, description: 'Retries queued' },
    succeeded: count,
    failed: { ...count, description: 'Retries that failed (or were cancelled) again' },
    running: { ...count, description: 'Retries waiting for admission or running' },
    temporalWorkflowId: { type: 'string', description: 'The job in the Temporal UI (`retry-job:<id>`, workflow type retryRuns)' },
    createdAt: dateTime,
    finishedAt: { type: ['string', 'null'], format: 'date-time' },
  }),
};

export const RetryJobDryRunSchema: JsonSchema = {
  $id: 'RetryJobDryRun',
  ...strictObject({
    dryRun: { type: 'boolean', enum: [true] },
    count: { ...count, description: 'Failed runs the filter finds (before nodeId and errorContains narrow them)' },
    sample: { type: 'array', items: { type: 'string' }, description: 'Up to 10 of their log ids' },
  }),
};
