/** Request schemas of the Objects and Tables endpoints. Strict where SPEC.md makes the body strict. */
import { FIELD_TYPES } from '../../db/tables/types.js';
import type { JsonSchema } from '../validation.js';

const nullableString = (maxLength: number) => ({ type: ['string', 'null'], maxLength });
const id = { type: 'integer', minimum: 1 };

/** Field body (create): unknown top-level keys are refused. `options`/`tags` are accepted only to refuse them clearly. */
export const FieldCreateSchema: JsonSchema = {
  $id: 'FieldCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    type: { type: 'string', description: `One of ${FIELD_TYPES.join(', ')}` },
    metadata: { type: 'object', description: 'Per type; omit to take the defaults (see SPEC.md)' },
    required: { type: 'boolean' },
    unique: { type: 'boolean' },
    defaultValue: { description: 'Default for new records; backfills existing ones. Dates accept NOW and TODAY.' },
    record_type_id: { type: ['integer', 'null'], minimum: 1, description: 'Objects: scope the field to one record type' },
    options: { description: 'Refused: create options through the options endpoint' },
    tags: { description: 'Refused on create' },
  },
};

export const FieldPatchSchema: JsonSchema = {
  $id: 'FieldPatch',
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    type: { type: 'string', description: 'Changing the type converts values safely or is refused' },
    metadata: { type: 'object' },
    required: { type: 'boolean' },
    unique: { type: 'boolean' },
    defaultValue: {},
    order: { type: 'integer', minimum: 0 },
    tags: {
      type: 'array',
      description: 'Replaces the options of a select field (kept by id or name; others removed from every row)',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: { id, name: { type: 'string', minLength: 1, maxLength: 255 }, color: nullableString(32) },
      },
    },
  },
};

export const TableCreateSchema: JsonSchema = {
  $id: 'TableCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 63, description: 'Becomes the URL name (lowercase, underscores)' },
    displayName: { type: 'string', minLength: 1, maxLength: 255 },
    emoji: nullableString(16),
    color: nullableString(32),
    description: nullableString(2000),
    columns: { type: 'array', maxItems: 200, items: { $ref: 'FieldCreate' } },
  },
};

export const TablePatchSchema: JsonSchema = {
  $id: 'TablePatch',
  type: 'object',
  additionalProperties: false,
  properties: {
    displayName: { type: 'string', minLength: 1, maxLength: 255 },
    emoji: nullableString(16),
    color: nullableString(32),
    description: nullableString(2000),
  },
};

export const OptionCreateSchema: JsonSchema = {
  $id: 'OptionCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 255 }, color: nullableString(32) },
};

export const OptionPatchSchema: JsonSchema = {
  $id: 'OptionPatch',
  type: 'object',
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 255 }, color: nullableString(32), order: { type: 'integer', minimum: 0 } },
};

export const RecordTypeCreateSchema: JsonSchema = {
  $id: 'RecordTypeCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 255 }, description: nullableString(2000), isDefault: { type: 'boolean' } },
};

export const RecordTypePatchSchema: JsonSchema = {
  $id: 'RecordTypePatch',
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    description: nullableString(2000),
    isDefault: { type: 'boolean', description: 'true promotes this record type to the default' },
    order: { type: 'integer', minimum: 0 },
  },
};

const viewProperties = {
  name: { type: 'string', minLength: 1, maxLength: 255 },
  filter: { anyOf: [{ $ref: 'QueryFilter' }, { type: 'null' }] },
  sort: { $ref: 'QuerySort' },
  visibleFieldIds: { type: 'array', items: id, maxItems: 500 },
};

export const ViewCreateSchema: JsonSchema = {
  $id: 'ViewCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: viewProperties,
};

export const ViewPatchSchema: JsonSchema = {
  $id: 'ViewPatch',
  type: 'object',
  additionalProperties: false,
  properties: { ...viewProperties, order: { type: 'integer', minimum: 0 } },
};

const rowQueryProperties = {
  filter: { $ref: 'QueryFilter' },
  search: { type: 'string', maxLength: 500, description: 'Full-text search over the text fields (prefix match per word)' },
  recordTypeId: id,
};

export const RowsListSchema: JsonSchema = {
  $id: 'RowsListQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    ...rowQueryProperties,
    sort: { $ref: 'QuerySort' },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    cursor: { type: 'string', maxLength: 8192, description: 'nextCursor of the previous page' },
  },
};

export const RowsCountSchema: JsonSchema = {
  $id: 'RowsCountQuery',
  type: 'object',
  additionalProperties: false,
  properties: rowQueryProperties,
};

export const RowsExportSchema: JsonSchema = {
  $id: 'RowsExportQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    ...rowQueryProperties,
    sort: { $ref: 'QuerySort' },
    viewId: { ...id, description: "A saved view: its filter applies too, its sort and record type unless given, and only its visible fields, in its order" },
  },
};

export const RowBodySchema: JsonSchema = {
  $id: 'RowBody',
  type: 'object',
  description: 'Field values keyed by field name or id, flat or under `data`; optional `recordTypeId` (Objects)',
  properties: { data: { type: 'object' }, recordTypeId: { type: ['integer', 'null'], minimum: 1 } },
};

export const RowsBulkSchema: JsonSchema = {
  $id: 'RowsBulk',
  type: 'object',
  additionalProperties: false,
  required: ['rows'],
  properties: { rows: { type: 'array', minItems: 1, maxItems: 5000, items: { $ref: 'RowBody' } } },
};

export const LinkSchema: JsonSchema = {
  $id: 'RelationLink',
  type: 'object',
  additionalProperties: false,
  required: ['targetIds'],
  properties: { targetIds: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'string', pattern: '^[0-9a-f]{24}$' } } },
};

export const PageQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 }, cursor: { type: 'string', maxLength: 200 } },
};
