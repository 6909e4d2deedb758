/** Request schemas of the /workflows endpoints. */
import type { NodeScope } from '../../nodes/node-module.js';
import { NODE_MODULES, nodeDataSchema, nodeModule } from '../../nodes/registry.js';
import type { JsonSchema } from '../validation.js';

const statuses = ['ACTIVE', 'DRAFT', 'PAUSED', 'ARCHIVED'];
const nodeId = { type: 'string', minLength: 1, maxLength: 100 };
/** An extension of SPEC.md's workflow fields (README, Admission control). */
const concurrencyLimit = {
  type: ['integer', 'null'],
  minimum: 1,
  maximum: 10_000,
  description: 'Runs of this workflow in flight at once; further runs wait in order. null: no limit but the global bound',
};

export const WorkflowCreateSchema: JsonSchema = {
  $id: 'WorkflowCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
    description: { type: ['string', 'null'], maxLength: 5000 },
    status: { type: 'string', enum: statuses },
    concurrencyLimit,
  },
};

export const WorkflowUpdateSchema: JsonSchema = {
  $id: 'WorkflowUpdate',
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
    description: { type: ['string', 'null'], maxLength: 5000 },
    status: { type: 'string', enum: statuses },
    concurrencyLimit,
  },
};

export const WorkflowListQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['ACTIVE', 'DELETED', 'DRAFT'] },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    cursor: { type: 'string', maxLength: 200 },
  },
};

/** `TOOLS_AI` → `ToolsAi`: a node type's name in its OpenAPI components (`ToolsAiNode`, `ToolsAiNodeData`). */
const pascalType = (type: string) => type.toLowerCase().replace(/(^|_)([a-z])/g, (_, _sep, c: string) => c.toUpperCase());

/** The data schema of each node type, as shared schemas (`components.schemas` of the OpenAPI document). */
export const NodeDataSchemas: JsonSchema[] = NODE_MODULES.filter((m) => m.scopes.length).map((m) => ({
  $id: `${pascalType(m.type)}NodeData`,
  ...nodeDataSchema(m),
}));

const typeOf = (schema: JsonSchema) => (schema.properties as { type: { const: string } }).type.const;

/**
 * A node of one type (`ToolsAiNode`: `type` TOOLS_AI, `data` a `ToolsAiNodeData`), shared by the node unions of every
 * scope the type has: a named branch, so the discriminator of `WorkflowNode` and `FlowNode` can select it.
 */
export const NodeTypeSchemas: JsonSchema[] = NodeDataSchemas.map((schema) => ({
  $id: `${pascalType(typeOf(schema))}Node`,
  type: 'object',
  required: ['type'],
  properties: { type: { const: typeOf(schema) }, data: { $ref: schema.$id } },
}));

/** The branches of the node types a scope refuses (`DynamicTablesNodeRefusedInFlow`): accepted by the schema only to say why not. */
export function refusedNodeSchemas(scope: NodeScope, refused: Readonly<Record<string, string>>): JsonSchema[] {
  return Object.entries(refused).map(([type, message]) => ({
    $id: `${pascalType(type)}NodeRefusedIn${pascalType(scope)}`,
    type: 'object',
    required: ['type'],
    description: `Refused: ${message}`,
    properties: { type: { const: type } },
  }));
}

/**
 * A node of a workflow or flow graph: `data` is validated by the schema of the node's `type` (a discriminated oneOf
 * of `NodeTypeSchemas`). `refused` types (`refusedNodeSchemas`) are accepted by the schema and refused by the graph
 * service with a message saying what to use. The branches are shared schemas: register them before compiling this.
 */
export function nodeSchemaFor(scope: NodeScope, $id: string, nodeIdDescription: string, refused: JsonSchema[] = []): JsonSchema {
  const branches = NodeTypeSchemas.filter((schema) => nodeModule(typeOf(schema))?.scopes.includes(scope));
  return {
    $id,
    type: 'object',
    additionalProperties: false,
    required: ['type'],
    properties: {
      nodeId: { ...nodeId, description: nodeIdDescription },
      alias: { type: 'string', minLength: 1, maxLength: 255 },
      position: {
        type: 'object',
        additionalProperties: false,
        required: ['positionX', 'positionY'],
        properties: { positionX: { type: 'number' }, positionY: { type: 'number' } },
      },
      type: {
        enum: [...branches, ...refused].map(typeOf),
        description: `Node type (SPEC.md, ${scope === 'flow' ? 'Flow' : 'Workflow'} node types)`,
      },
      data: { type: 'object', description: 'Payload of the node type (see the oneOf below); data.type repeats the type' },
      edges: {
        type: 'array',
        maxItems: 100,
        items: {
          type: 'object',
          additionalProperties: true,
          required: ['handle', 'targetEdge'],
          properties: { handle: { type: 'string', minLength: 1, description: "One of the source node type's handles" }, targetEdge: nodeId },
        },
      },
    },
    discriminator: { propertyName: 'type' },
    oneOf: [...branches, ...refused].map((schema) => ({ $ref: schema.$id })),
  };
}

export const NodeSchema: JsonSchema = nodeSchemaFor('automation', 'WorkflowNode', 'node_<uuid>; generated when omitted');

export const EdgeSchema: JsonSchema = {
  $id: 'WorkflowEdge',
  type: 'object',
  additionalProperties: false,
  required: ['source', 'handle', 'targetEdge'],
  properties: { source: nodeId, handle: { type: 'string', minLength: 1, maxLength: 100 }, targetEdge: nodeId },
};

export const EdgeDeleteSchema: JsonSchema = {
  $id: 'WorkflowEdgeDelete',
  type: 'object',
  additionalProperties: false,
  required: ['source', 'handle'],
  properties: { source: nodeId, handle: { type: 'string', minLength: 1, maxLength: 100 }, targetEdge: nodeId },
};

export const VariableCreateSchema: JsonSchema = {
  $id: 'WorkflowVariableCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, description: { type: 'string', maxLength: 2000 } },
};

export const VariableUpdateSchema: JsonSchema = {
  $id: 'WorkflowVariableUpdate',
  type: 'object',
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, description: { type: 'string', maxLength: 2000 } },
};

export const ManualRunSchema: JsonSchema = {
  $id: 'ManualRun',
  type: 'object',
  additionalProperties: false,
  properties: { payload: { description: 'Any JSON: the run sees it as {trigger_payload}' }, entryNodeId: { type: 'string', maxLength: 100 } },
};
