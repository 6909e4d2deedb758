/** Request and response schemas of the versions of a flow's or a workflow's graph (graph-versions.routes.ts). */
import type { JsonSchema } from '../validation.js';
import { PageQuerySchema, strictObject } from './common.schema.js';
import { GraphSchema } from './flow.schema.js';

export const PublishSchema: JsonSchema = {
  $id: 'Publish',
  type: 'object',
  additionalProperties: false,
  description: 'Optional: a message the version keeps (what changed, why)',
  properties: { message: { type: ['string', 'null'], maxLength: 1000 } },
  example: { message: 'Greets returning customers by name' },
};

const versionProperties: Record<string, JsonSchema> = {
  version: { type: 'integer', minimum: 1, description: 'Numbered from 1 in the order of publishing' },
  snapshotId: { type: 'string', description: 'The live snapshot holding the graph' },
  isLive: { type: 'boolean', description: 'Runs and conversations execute this version now' },
  message: { type: ['string', 'null'], description: 'Given at publish (a restore says which version it restored)' },
  publishedBy: {
    description:
      'The API key that published it (keyId null: a signed-in session) and its user (null for versions published before versions were numbered)',
    oneOf: [
      strictObject({ keyId: { type: ['integer', 'null'] }, userId: { type: ['integer', 'null'] }, email: { type: ['string', 'null'] } }),
      { type: 'null' },
    ],
  },
  nodeCount: { type: 'integer' },
  createdAt: { type: 'string', format: 'date-time' },
};

export const VersionSchema: JsonSchema = { $id: 'Version', ...strictObject(versionProperties) };

export const VersionPageSchema: JsonSchema = {
  $id: 'VersionPage',
  ...strictObject({ agentry: { type: 'array', items: strictObject(versionProperties) }, nextCursor: { type: ['string', 'null'] } }),
};

export const VersionGraphSchema: JsonSchema = {
  $id: 'VersionGraph',
  ...strictObject({
    ...versionProperties,
    nodes: (GraphSchema.properties as Record<string, JsonSchema>).nodes!,
    edges: (GraphSchema.properties as Record<string, JsonSchema>).edges!,
  }),
};

const change = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  description: 'A JSON Pointer into the node; `old` is absent where the value was added, `new` where it was removed',
  properties: { path: { type: 'string' }, old: {}, new: {} },
};
const nodeDiff = { nodeId: { type: 'string' }, type: { type: 'string' }, alias: { type: 'string' }, summary: { type: 'string' } };
const edge = strictObject({ source: { type: 'string' }, handle: { type: 'string' }, targetEdge: { type: 'string' } });

export const VersionDiffSchema: JsonSchema = {
  $id: 'VersionDiff',
  ...strictObject({
    from: { type: 'integer' },
    to: { type: 'integer' },
    nodes: strictObject({
      added: { type: 'array', items: strictObject(nodeDiff) },
      removed: { type: 'array', items: strictObject(nodeDiff) },
      changed: { type: 'array', items: strictObject({ ...nodeDiff, changes: { type: 'array', items: change } }) },
    }),
    edges: strictObject({
      added: { type: 'array', items: edge },
      removed: { type: 'array', items: edge },
      changed: {
        type: 'array',
        items: strictObject({ source: { type: 'string' }, handle: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } }),
      },
    }),
    summary: { type: 'array', items: { type: 'string' }, description: 'One line a person can read per changed node, then per changed edge' },
  }),
};

export const VersionDiffQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: { from: { type: 'integer', minimum: 1 }, to: { type: 'integer', minimum: 1 } },
};

export const VersionListQuerySchema = PageQuerySchema;
