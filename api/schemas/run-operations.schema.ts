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
