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

/** View aggregation: one operation over one field of the view's table. */
export const AggregationCreateSchema: JsonSchema = {
  $id: 'AggregationCreate',
  type: 'object',
  additionalProperties: false,
  required: ['fieldId', 'operation'],
  properties: {
    fieldId: id,
    operation: {
      type: 'string',
      description: 'count, countEmpty, countFilled, unique, sum, avg, min, max, percentEmpty, percentFilled, percentUnique',
    },
  },
};

export const AggregationPatchSchema: JsonSchema = {
  $id: 'AggregationPatch',
  type: 'object',
  additionalProperties: false,
  required: ['operation'],
  properties: { operation: { type: 'string' } },
};

export const AggregationComputeSchema: JsonSchema = {
  $id: 'AggregationCompute',
  type: 'object',
  additionalProperties: false,
  description: "Optional query replacing the view's filter; the view's record type still applies",
  properties: {
    filter: { $ref: 'QueryFilter' },
    search: { type: 'string', maxLength: 500 },
  },
};

/** preview-formula: the metadata a formula field would be created with, and the rows to evaluate it on. */
export const FormulaPreviewSchema: JsonSchema = {
  $id: 'FormulaPreview',
  type: 'object',
  additionalProperties: false,
  required: ['metadata'],
  properties: {
    name: { type: 'string', maxLength: 255, description: 'Ignored; accepted so a field create body can be sent as is' },
    type: { const: 'formula' },
    metadata: { type: 'object', description: 'expression, applyIf, numberConfig, dateConfig, stringConfig, as for a formula field' },
    rowIds: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', pattern: '^[0-9a-fA-F]{24}$' } },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Rows evaluated (in creation order) when rowIds is absent' },
  },
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
    viewId: {
      ...id,
      description: 'A saved view: its filter applies too, its sort and record type unless given, and only its visible fields, in its order',
    },
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

export { PageQuerySchema } from './common.schema.js';
