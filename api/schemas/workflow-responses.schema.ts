/**
 * Response schemas of the workflow endpoints, written from `workflowListItem` / `workflowDetail`
 * (`db/automations/automations.service.ts`), `variableView` and `startManualRun`. The graph and snapshot list are the
 * flows' (`flow.schema.ts`): both owners share the graph service.
 */
import type { JsonSchema } from '../validation.js';
import { pageSchema, strictObject } from './common.schema.js';
import { WorkflowScheduleSchema } from './schedules.schema.js';

const dateTime = { type: 'string', format: 'date-time' };

const listItemProperties = {
  id: { type: 'integer' },
  name: { type: 'string' },
  description: { type: ['string', 'null'] },
  status: { enum: ['ACTIVE', 'DRAFT', 'PAUSED', 'ARCHIVED', 'DELETED'] },
  triggerType: { type: ['string', 'null'] },
  createdAt: dateTime,
  updatedAt: dateTime,
  runsCount: { type: 'integer' },
  runsFailedCount: { type: 'integer' },
  lastRunDate: { type: ['string', 'null'], format: 'date-time' },
};

export const WorkflowListItemSchema: JsonSchema = {
  $id: 'WorkflowListItem',
  ...strictObject(listItemProperties),
  example: {
    id: 4,
    name: 'New lead to CRM',
    description: null,
    status: 'ACTIVE',
    triggerType: 'WEBHOOK',
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-06T09:30:00.000Z',
    runsCount: 120,
    runsFailedCount: 2,
    lastRunDate: '2026-01-06T09:29:58.000Z',
  },
};

export const WorkflowPageSchema: JsonSchema = { $id: 'WorkflowPage', ...pageSchema(WorkflowListItemSchema) };

export const WorkflowSchema: JsonSchema = {
  $id: 'Workflow',
  type: 'object',
  additionalProperties: false,
  required: [...Object.keys(listItemProperties), 'liveSnapshotId', 'draftSnapshotId', 'concurrencyLimit'],
  properties: {
    ...listItemProperties,
    liveSnapshotId: { type: ['string', 'null'], description: 'The graph runs execute; null until the first publish' },
    draftSnapshotId: { type: 'string' },
    concurrencyLimit: { type: ['integer', 'null'], description: 'Runs of this workflow in flight at once (null: no limit of its own)' },
    nodes: { type: 'array', items: { type: 'object' }, description: 'With includeNodes=true: the draft nodes' },
    schedules: {
      type: 'array',
      description: 'GET only (extension): the Temporal Schedule of each SCHEDULED_TRIGGER node of the live graph that has one, with its next times',
      items: WorkflowScheduleSchema,
    },
    staleReferences: {
      type: 'array',
      description: 'GET only: ids of deleted agents that nodes still name',
      items: strictObject({ nodeId: { type: 'string' }, path: { type: 'string' }, id: { type: 'string' }, message: { type: 'string' } }),
    },
  },
};

const variableProperties = {
  id: { type: 'integer' },
  name: { type: 'string' },
  description: { type: 'string' },
  createdAt: dateTime,
  updatedAt: dateTime,
};

export const WorkflowVariableSchema: JsonSchema = {
  $id: 'WorkflowVariable',
  ...strictObject(variableProperties),
  example: {
    id: 3,
    name: 'order_id',
    description: 'Captured from the API node',
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:00:00.000Z',
  },
};

export const WorkflowVariablePageSchema: JsonSchema = { $id: 'WorkflowVariablePage', ...pageSchema(WorkflowVariableSchema) };

export const WorkflowVariableAllSchema: JsonSchema = {
  $id: 'WorkflowVariableAll',
  ...strictObject({
    agentry: {
      type: 'array',
      items: {
        oneOf: [
          strictObject({ ...variableProperties, builtIn: { const: false } }),
          strictObject({ id: { type: 'null' }, name: { type: 'string' }, description: { type: 'string' }, builtIn: { const: true } }),
        ],
      },
    },
    nextCursor: { type: 'null' },
  }),
};

export const NameExistsSchema: JsonSchema = { $id: 'NameExists', ...strictObject({ exists: { type: 'boolean' } }) };

export const ManualRunStartedSchema: JsonSchema = {
  $id: 'ManualRunStarted',
  ...strictObject({
    id: { type: 'string', description: 'The Temporal workflow id of the run' },
    runId: { type: ['string', 'null'], description: 'The Temporal run id; null while the run waits for admission (README, admission control)' },
    snapshotId: { type: 'string' },
    entryNodeId: { type: 'string' },
  }),
  example: { id: 'automation:4:manual-6f1c…', runId: '0195c3e8-…', snapshotId: '0195c3e7-…', entryNodeId: 'node_1' },
};
