/** Request and response schemas of an agent's flows and their graphs. */
import { flowGraphRules } from '../../nodes/registry.js';
import type { JsonSchema } from '../validation.js';
import { strictObject } from './common.schema.js';
import { nodeSchemaFor, refusedNodeSchemas } from './workflow.schema.js';

const statuses = ['ACTIVE', 'DRAFT', 'PAUSED', 'ARCHIVED'];
const name = { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' };
const description = { type: ['string', 'null'], maxLength: 5000 };

export const FlowCreateSchema: JsonSchema = {
  $id: 'FlowCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name, description, status: { type: 'string', enum: statuses } },
};

export const FlowUpdateSchema: JsonSchema = {
  $id: 'FlowUpdate',
  type: 'object',
  additionalProperties: false,
  properties: { name, description, status: { type: 'string', enum: statuses } },
};

/** The node types a flow refuses (DYNAMIC_TABLES), each a branch of `FlowNode` saying what to use instead. */
export const FlowRefusedNodeSchemas: JsonSchema[] = refusedNodeSchemas('flow', flowGraphRules.refused ?? {});

/** A node of a flow graph (SPEC.md, Flow node types); DYNAMIC_TABLES is documented as refused. */
export const FlowNodeSchema: JsonSchema = nodeSchemaFor(
  'flow',
  'FlowNode',
  'Letters, digits, _ or -, then _ and digits (say_ai_1); generated from the type when omitted',
  FlowRefusedNodeSchemas,
);

const graphNode = {
  type: 'object',
  required: ['nodeId', 'alias', 'position', 'type', 'data', 'edges'],
  properties: {
    nodeId: { type: 'string' },
    alias: { type: 'string' },
    position: { type: 'object' },
    type: { type: 'string' },
    data: { type: 'object' },
    edges: { type: 'array' },
  },
};

export const GraphSchema: JsonSchema = {
  $id: 'Graph',
  ...strictObject({
    nodes: { type: 'array', items: graphNode },
    edges: { type: 'array', items: strictObject({ source: { type: 'string' }, handle: { type: 'string' }, targetEdge: { type: 'string' } }) },
  }),
};

const flowProperties = {
  id: { type: 'integer' },
  name: { type: 'string' },
  description: { type: ['string', 'null'] },
  status: { enum: statuses },
  runCount: { type: 'integer', description: 'Conversation turns run by the flow (0 until the conversation runtime counts them)' },
  assistantId: { type: 'string', format: 'uuid', description: 'The owning agent' },
  isDefault: { type: 'boolean' },
  liveSnapshotId: { type: ['string', 'null'] },
  draftSnapshotId: { type: 'string' },
  createdAt: { type: 'string', format: 'date-time' },
  updatedAt: { type: 'string', format: 'date-time' },
};

export const FlowSchema: JsonSchema = {
  $id: 'Flow',
  type: 'object',
  additionalProperties: false,
  required: Object.keys(flowProperties),
  properties: { ...flowProperties, nodes: { type: 'array', items: graphNode, description: 'With includeNodes=true: the draft nodes' } },
};

export const SnapshotListSchema: JsonSchema = {
  $id: 'SnapshotList',
  ...strictObject({
    agentry: {
      type: 'array',
      items: strictObject({
        id: { type: 'string' },
        kind: { enum: ['DRAFT', 'LIVE'] },
        isLive: { type: 'boolean' },
        nodeCount: { type: 'integer' },
        createdAt: { type: 'string' },
      }),
    },
    nextCursor: { type: 'null' },
  }),
};
