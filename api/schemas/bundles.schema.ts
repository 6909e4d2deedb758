/** Schemas of bundles and imports (bundles.routes.ts). */
import type { JsonSchema } from '../validation.js';
import { strictObject } from './common.schema.js';

export const BundleSchema: JsonSchema = {
  $id: 'Bundle',
  type: 'object',
  required: ['format', 'formatVersion', 'kind', 'checksum'],
  description: 'One JSON file, keys sorted at every level; checksum: sha256 of the canonical JSON of everything else',
  properties: {
    format: { const: 'agentry-bundle' },
    formatVersion: { type: 'integer' },
    kind: { enum: ['agent', 'workflow', 'table'] },
    checksum: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
    source: { type: 'object', description: 'Where it was exported: the account namespace and the id there' },
    secretsRemoved: { type: 'array', items: { type: 'string' }, description: 'JSON Pointers of the secrets left out (set them again after import)' },
  },
};

export const ImportRequestSchema: JsonSchema = {
  $id: 'ImportRequest',
  type: 'object',
  additionalProperties: false,
  required: ['bundle'],
  properties: {
    bundle: { type: 'object', description: 'A bundle as an export answered it (edited by hand or not)' },
    dryRun: { type: 'boolean', description: 'Answer the plan, change nothing' },
    mapping: {
      type: 'object',
      description: 'References the bundle cannot carry, to ids here: {"connectedAccount:5": 7, "agent:<uuid>": "<uuid>"}',
      additionalProperties: { type: ['string', 'integer'] },
    },
    activate: { type: 'boolean', description: 'An imported workflow is set ACTIVE (it starts DRAFT otherwise)' },
    prune: {
      type: 'boolean',
      description:
        'Remove what an earlier import of the same source made and this bundle no longer has: flows, intents, variables, custom tools, ' +
        'playbooks, knowledge bases and incoming webhooks nothing else here uses (never a Table or Object); without it they are left and listed under stale',
    },
  },
};

const id = { type: ['string', 'integer', 'null'] };
const itemProperties = { kind: { type: 'string' }, name: { type: 'string' }, sourceId: id, id };
const item = strictObject(itemProperties);

export const ImportPlanSchema: JsonSchema = {
  $id: 'ImportPlan',
  ...strictObject({
    dryRun: { type: 'boolean' },
    kind: { type: 'string' },
    checksum: { type: 'string' },
    checksumMatches: { type: 'boolean', description: 'false: the bundle was edited since its export' },
    action: {
      enum: ['create', 'update', 'unchanged'],
      description: 'update: a changed bundle of something imported before, updated in place (same ids); unchanged: this bundle was imported before',
    },
    target: strictObject({ kind: { type: 'string' }, id }),
    create: { type: 'array', items: item },
    update: {
      type: 'array',
      items: strictObject({ ...itemProperties, changes: { type: 'array', items: { type: 'string' } } }),
      description: 'What changes in place, a line each',
    },
    keep: { type: 'array', items: item, description: 'What an update finds as the bundle has it' },
    remove: { type: 'array', items: item, description: 'What an earlier import made and the bundle no longer has, removed (prune: true)' },
    stale: {
      type: 'array',
      items: item,
      description: 'What an earlier import made and the bundle no longer has, left here: prune: true removes it (conflicts say why one cannot be)',
    },
    ids: { type: 'object', additionalProperties: id, description: '<kind>:<id there> → id here (null in a dry run for what is created)' },
    connect: {
      type: 'array',
      items: strictObject({ reference: { type: 'string' }, where: { type: 'string' }, message: { type: 'string' } }),
      description: 'References to connect here: numbers, pages, missing tables, connected accounts, other agents, webhooks’ new URLs',
    },
    conflicts: { type: 'array', items: { type: 'string' } },
  }),
};
